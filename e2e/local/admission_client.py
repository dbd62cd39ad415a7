"""A burst of clients of the official Python SDK (livepeer-gateway), for the admission bench.

Usage: admission_client.py <orchestrator-url> <app> <clients> <spread-ms> <retry-for-s>
Starts <clients> clients spread evenly over <spread-ms>. Each reserves a session as the SDK does
(discovery, then the runners in order until one accepts) and opens the example app's SSE stream
through Node, timing reserve → first byte of the app's answer. A client that finds no runner tries
again every 100 ms for up to <retry-for-s> seconds and says how long it waited. Each session is
stopped after its first byte. Prints one JSON object per client, times in milliseconds.
"""

import asyncio
import json
import sys
import time

from livepeer_gateway import call_runner, reserve_session
from livepeer_gateway.errors import NoRunnerAvailableError

RETRY_S = 0.1


def now_ms():
    return time.monotonic() * 1000


async def first_byte(session):
    stream = await call_runner(session.app_url + "/sse?count=1&intervalMs=0", method="GET", stream=True)
    async with stream:
        async for _line in stream.aiter_lines():
            return


async def client(index, orch, app, delay_s, retry_for_s):
    await asyncio.sleep(delay_s)
    started = now_ms()
    attempt = started
    while True:
        try:
            session = await reserve_session(orchestrators=[orch], app=app)
            break
        except NoRunnerAvailableError:
            if now_ms() - started > retry_for_s * 1000:
                return {"client": index, "ok": False, "gaveUpAfterMs": now_ms() - started}
            await asyncio.sleep(RETRY_S)
            attempt = now_ms()
    try:
        await first_byte(session)
        answered = now_ms()
    finally:
        await session.aclose()
    return {
        "client": index,
        "ok": True,
        # From the start of the attempt that got a runner to the app's first byte through Node.
        "reserveToFirstByteMs": answered - attempt,
        "noRunnerFirst": attempt != started,
        # How long a client that first found no runner waited until an attempt got one.
        "waitedMs": attempt - started,
    }


async def main(orch, app, clients, spread_ms, retry_for_s):
    step = spread_ms / 1000 / max(clients, 1)
    tasks = [client(i, orch, app, i * step, retry_for_s) for i in range(clients)]
    for result in await asyncio.gather(*tasks, return_exceptions=True):
        if isinstance(result, BaseException):
            result = {"ok": False, "error": f"{type(result).__name__}: {result}"}
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    orch, app, clients, spread_ms, retry_for_s = sys.argv[1:6]
    asyncio.run(main(orch, app, int(clients), float(spread_ms), float(retry_for_s)))
