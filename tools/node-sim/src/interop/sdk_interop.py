"""Drives the official Python SDK (livepeer-gateway) against the Node simulator.

Usage: sdk_interop.py <scenario> <orchestrator-url> <bootstrap-secret> <runner-app-url>
Prints one JSON object per line: {"step": ..., ...}; exits non-zero on the first failure.
"""

import asyncio
import json
import sys

import aiohttp
from livepeer_gateway import (
    LiveRunnerGPU,
    call_runner,
    discover_runners,
    register_runner,
    reserve_session,
    runner_selector,
)


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


async def wait_until(predicate, what, timeout=10.0):
    deadline = asyncio.get_running_loop().time() + timeout
    while not predicate():
        if asyncio.get_running_loop().time() > deadline:
            raise TimeoutError(f"timed out waiting for {what}")
        await asyncio.sleep(0.02)


async def register(orch, secret, app_url, app, events, **options):
    return await register_runner(
        orch,
        secret=secret,
        runner_url=app_url,
        app=app,
        auto_detect_gpu=False,
        gpu=LiveRunnerGPU(id="0", name="SimGPU", vram_mb=1024),
        heartbeat_interval_s=0.2,
        on_session_reserve=lambda e: events.append(("reserved", e.session_id)),
        on_session_release=lambda e: events.append(("released", e.session_id)),
        **options,
    )


async def exercise_session(session, events):
    result = await call_runner(session.app_url + "/hello?q=1", payload={"x": 1})
    emit("http", url=result.data.get("url"), body=result.data.get("body"), headers=result.data.get("headers"))
    lines = []
    stream = await call_runner(session.app_url + "/events/sse", method="GET", stream=True)
    async with stream:
        emit("sse-open", status=stream.status, content_type=stream.content_type)
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                lines.append(line)
            if len(lines) >= 3:
                break
    emit("sse", lines=lines)
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(session.app_url.replace("http", "ws", 1) + "/ws") as ws:
            await ws.send_str("hi")
            message = await ws.receive(timeout=5)
            emit("ws", data=message.data)
    await wait_until(lambda: ("reserved", session.session_id) in events, "the O2R reserved event")
    emit("o2r-reserved", session_id=session.session_id)


async def free(orch, secret, app_url):
    events = []
    registration = await register(orch, secret, app_url, "interop-echo", events, capacity=2)
    emit("registered", runner_id=registration.runner_id, interval=registration.heartbeat_interval_s, ttl=registration.heartbeat_ttl_s, o2r=registration.o2r_channel is not None)
    entries = await discover_runners(discovery_url=f"{orch}/discovery", app="interop-echo", gpu="SimGPU")
    emit("discovered", urls=[runner["url"] for entry in entries for runner in entry["runners"]])
    session = await reserve_session(orchestrators=[orch], app="interop-echo")
    emit("reserved", session_id=session.session_id, app_url=session.app_url, control_url=session.control_url)
    await exercise_session(session, events)
    await asyncio.sleep(0.5)
    emit("active", ids=list(registration.active_session_ids))
    await session.aclose()
    await wait_until(lambda: ("released", session.session_id) in events, "the O2R released event")
    emit("o2r-released", session_id=session.session_id)
    await registration.close()
    emit("closed")


async def paid(orch, secret, app_url):
    events = []
    persistent = await register(orch, secret, app_url, "paid-echo", events, price=3600, currency="usd", unit="hour")
    single = await register(orch, secret, app_url, "paid-hello", [], mode="single-shot", price=0.002, currency="usd", unit="fixed")
    emit("registered", runner_ids=[persistent.runner_id, single.runner_id])
    session = await reserve_session(orchestrators=[orch], app="paid-echo", signer_url=orch)
    emit("reserved", session_id=session.session_id)
    result = await call_runner(session.app_url + "/hello", payload={"paid": True})
    emit("http", url=result.data.get("url"))
    await wait_until(lambda: ("reserved", session.session_id) in events, "the O2R reserved event")
    await asyncio.sleep(3.5)
    emit("still-funded", released=session.released)
    await session.aclose()
    await wait_until(lambda: ("released", session.session_id) in events, "the O2R released event")
    emit("stopped")
    cursor = await runner_selector(orchestrators=[orch], app="paid-hello", signer_url=orch, body={"prompt": "x"})
    shot = await cursor.next()
    emit("single-shot", url=shot.data.get("url"), session_id=shot.session_id)
    # Only a signer URL: the SDK finds the runner through the signer's GET /discover-orchestrators.
    via_signer = await reserve_session(app="paid-echo", signer_url=orch)
    emit("signer-discovery", session_id=via_signer.session_id, app_url=via_signer.app_url)
    await via_signer.aclose()
    await persistent.close()
    await single.close()
    emit("closed")


async def main():
    scenario, orch, secret, app_url = sys.argv[1:5]
    await {"free": free, "paid": paid}[scenario](orch, secret, app_url)


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except Exception as error:  # report the failure as a step, then fail
        emit("error", type=type(error).__name__, message=str(error))
        sys.exit(1)
