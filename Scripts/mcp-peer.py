#!/usr/bin/env python3
"""The peer rows of Scripts/bench: the Python MCP SDK (PyPI's `mcp`) over stdio, with one tool that books a room in
memory (no durable write, unlike BookRoom: the peer's figures are the kinder to it).

  mcp-peer.py serve                       the MCP stdio server (FastMCP in mcp 1.x, MCPServer in 2.x)
  mcp-peer.py measure RUNS COLD [RESULTS] spawn+initialize+call of a fresh server COLD times, then RUNS warm calls
                                          on one session (after 20 unmeasured), printing median and p99 (ms) and
                                          appending them to RESULTS (JSON lines) when given

Run it with the Python of the virtual environment that holds `mcp` (Scripts/bench makes one)."""
import asyncio, json, statistics, sys, time


def serve():
    try:
        from mcp.server.mcpserver import MCPServer as Server  # mcp 2.x
    except ImportError:
        from mcp.server.fastmcp import FastMCP as Server  # mcp 1.x
    server = Server("rooms-peer")
    bookings = {}

    @server.tool()
    def book_room(room_number: int, booked_by: str, cancel: bool = False) -> str:
        """Books a room (or cancels its booking) in memory."""
        if cancel:
            bookings.pop(room_number, None)
            return f"Room {room_number} is free again."
        bookings[room_number] = booked_by
        return f"Room {room_number} is now booked by {booked_by}."

    server.run("stdio")


def row(name, values, results):
    values = sorted(values)
    median = statistics.median(values)
    p99 = values[min(len(values) - 1, int(len(values) * 0.99))]
    print(f"{name:<44} {median:9.3f} {p99:9.3f}")
    if results:
        with open(results, "a") as out:
            out.write(json.dumps({"name": name, "median": median, "p99": p99, "n": len(values)}) + "\n")


async def measure(runs, cold_runs, results):
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    server = StdioServerParameters(command=sys.executable, args=[__file__, "serve"])

    def arguments(i):
        return {"room_number": 1 + i % 300, "booked_by": "Bench", "cancel": (i // 300) % 2 == 1}

    async def call(session, i):
        result = await session.call_tool("book_room", arguments(i))
        if getattr(result, "isError", getattr(result, "is_error", False)):
            sys.exit(f"mcp-peer: the tool failed: {result}")

    cold = []
    for i in range(cold_runs):
        start = time.perf_counter()
        async with stdio_client(server) as (read, write):
            async with ClientSession(read, write) as session:
                await session.initialize()
                await call(session, i)
                cold.append((time.perf_counter() - start) * 1000)
    row("peer: MCP SDK spawn+initialize+call", cold, results)
    warm = []
    async with stdio_client(server) as (read, write):
        async with ClientSession(read, write) as session:
            await session.initialize()
            for i in range(-20, runs):
                start = time.perf_counter()
                await call(session, i + 20)
                if i >= 0:
                    warm.append((time.perf_counter() - start) * 1000)
    row("peer: MCP SDK warm call", warm, results)


def main():
    if sys.argv[1:2] == ["serve"]:
        serve()
    elif sys.argv[1:2] == ["measure"] and len(sys.argv) in (4, 5):
        asyncio.run(measure(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] if len(sys.argv) == 5 else None))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
