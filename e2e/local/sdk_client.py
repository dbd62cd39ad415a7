"""The client side of the official Python SDK (livepeer-gateway) against our system.

Usage: sdk_client.py <orchestrator-url> <app> [<signer-url> [--hold-seconds N]]
Discovers the app's runners through Node, reserves a session (paid through the remote signer when
one is named, as a priced app needs), calls the example app over HTTP, SSE and WebSocket through
Node's proxy, and stops the session. Prints one JSON object per line.

With --hold-seconds, it instead holds one session with an SSE stream open for N seconds (paying as
it goes), then stops it; if the stream is cut first (a drain's deadline), it says when.
"""

import asyncio
import json
import sys
import time

import aiohttp
from livepeer_gateway import call_runner, discover_runners, reserve_session


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


async def main(orch, app, signer=None):
    entries = await discover_runners(discovery_url=f"{orch}/discovery", app=app)
    emit("discovered", count=sum(len(entry["runners"]) for entry in entries))
    session = await reserve_session(orchestrators=[orch], app=app, signer_url=signer)
    emit("reserved", session_id=session.session_id, paid=signer is not None)
    echoed = await call_runner(session.app_url + "/echo", payload={"via": "sdk"})
    emit("http", echoed=echoed.data)
    lines = []
    stream = await call_runner(session.app_url + "/sse?count=3&intervalMs=20", method="GET", stream=True)
    async with stream:
        async for line in stream.aiter_lines():
            if line.startswith("data:"):
                lines.append(line)
            if len(lines) >= 3:
                break
    emit("sse", count=len(lines))
    async with aiohttp.ClientSession() as http:
        async with http.ws_connect(session.app_url.replace("http", "ws", 1) + "/ws") as ws:
            await ws.send_str("hello-through-node")
            message = await ws.receive(timeout=5)
            emit("ws", data=message.data)
    await session.aclose()
    emit("stopped", session_id=session.session_id)


async def hold(orch, app, signer, seconds):
    session = await reserve_session(orchestrators=[orch], app=app, signer_url=signer)
    emit("reserved", session_id=session.session_id, paid=signer is not None)
    events, last, error, started = 0, None, None, time.time()
    try:
        stream = await call_runner(session.app_url + "/sse?count=10000&intervalMs=250", method="GET", stream=True)
        async with stream:
            async for line in stream.aiter_lines():
                if line.startswith("data:"):
                    events, last = events + 1, time.time()
                    if events == 1:
                        emit("streaming", at=last)
                if time.time() - started >= seconds:
                    break
    except Exception as cut:  # the stream's end is the measurement, not a failure of the client
        error = f"{type(cut).__name__}: {cut}"
    if error is None and time.time() - started < seconds:
        error = "the stream ended before the hold time"
    emit("stream-ended", events=events, last_event_at=last, ended_at=time.time(), error=error)
    if error is None:
        await session.aclose()
        emit("stopped", session_id=session.session_id)


if __name__ == "__main__":
    try:
        if "--hold-seconds" in sys.argv:
            at = sys.argv.index("--hold-seconds")
            asyncio.run(hold(sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[at + 1])))
        else:
            asyncio.run(main(*sys.argv[1:4]))
    except Exception as error:  # report the failure as a step, then fail
        emit("error", type=type(error).__name__, message=str(error))
        sys.exit(1)
