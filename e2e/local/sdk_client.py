"""The client side of the official Python SDK (livepeer-gateway) against our system.

Usage: sdk_client.py <orchestrator-url> <app>
Discovers the app's runners through Node, reserves a session, calls the example app over HTTP, SSE
and WebSocket through Node's proxy, and stops the session. Prints one JSON object per line.
"""

import asyncio
import json
import sys

import aiohttp
from livepeer_gateway import call_runner, discover_runners, reserve_session


def emit(step, **fields):
    print(json.dumps({"step": step, **fields}), flush=True)


async def main(orch, app):
    entries = await discover_runners(discovery_url=f"{orch}/discovery", app=app)
    emit("discovered", count=sum(len(entry["runners"]) for entry in entries))
    session = await reserve_session(orchestrators=[orch], app=app)
    emit("reserved", session_id=session.session_id)
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


if __name__ == "__main__":
    try:
        asyncio.run(main(sys.argv[1], sys.argv[2]))
    except Exception as error:  # report the failure as a step, then fail
        emit("error", type=type(error).__name__, message=str(error))
        sys.exit(1)
