#!/usr/bin/env python3
"""The end of Scripts/bench: the goal table and its plot, from the rows the run wrote (one JSON object a line:
`name` and `median`, `p99` in ms, or a store row's rates).

Each goal row sets a measure beside its floor (or its peer), both from the same run: the ratio is measure / floor
of the medians, so lower is better and a goal is met when the ratio is at most the goal. The peer row turns "at
least 2x faster than the MCP SDK's warm call" into warm BookRoom / MCP warm call <= 0.5; the store rows turn "at
least SQLite's increments per second" into the store's time per increment / SQLite's <= 1.

usage: bench-report.py RESULTS PNG [FACTS]   (FACTS: one line for the plot's title)"""
import json, sys

# (label, measure row, floor row, goal, what the floor is)
GOALS = [
    ("warm BookRoom", "warm: one intent, kept-alive extension", "floor: warm BookRoom in C", 2.0,
     "its round trips and fdatasyncs in C"),
    ("warm BookRoom / MCP warm call (peer)", "warm: one intent, kept-alive extension", "peer: MCP SDK warm call", 0.5,
     "the Python MCP SDK's warm call (peer)"),
    ("cold BookRoom", "cold: assistant run, spawned as its floor", "floor: cold, host + 2 extensions plain", 3.0,
     "assistant --version, RoomsIntents and RoomsUI spawned in turn"),
    ("cold BookRoom, assistant serve running", "cold: assistant run, assistant serve running",
     "floor: cold, host + 2 extensions plain", 3.0, "as cold BookRoom; the call borrows the running extensions"),
    ("assistant --version", "spawn: assistant --version", "floor: static Swift hello", 1.5, "a static Swift hello"),
    ("assistant list", "spawn: assistant list", "floor: static Swift hello", 1.5, "a static Swift hello"),
]
STORE_PROCESSES = (1, 2, 4, 8)


def load(path):
    rows = {}
    with open(path) as lines:
        for line in lines:
            if line.strip():
                entry = json.loads(line)
                rows[entry["name"]] = entry
    return rows


def goal_rows(rows):
    """(label, median, p99, floor median, ratio, goal, note) for every goal; None where a figure is missing."""
    table = []
    for label, measure, floor, goal, note in GOALS:
        m, f = rows.get(measure), rows.get(floor)
        # A measure whose runs failed (a command exited non-zero) is no measure of the work: shown, never met.
        failed = any(row and row.get("failed") for row in (m, f))
        ratio = m["median"] / f["median"] if m and f and f["median"] > 0 and not failed else None
        table.append((label + (" (runs failed)" if failed else ""), m and m["median"], m and m.get("p99"),
                      f and f["median"], ratio, goal, note))
    for processes in STORE_PROCESSES:
        s = rows.get(f"store: {processes} processes")
        # Time per increment (ms) = 1000 / rate: the store's against SQLite's, both at fdatasync per commit.
        ours = 1000 / s["store_per_second"] if s and s["store_per_second"] > 0 else None
        theirs = 1000 / s["sqlite_per_second"] if s and s["sqlite_per_second"] > 0 else None
        ratio = ours / theirs if ours and theirs else None
        table.append((f"store, {processes} process{'es' if processes > 1 else ''} (ms/increment)", ours, None, theirs,
                      ratio, 1.0, "SQLite (WAL, synchronous=FULL)"))
    return table


def number(value, digits=3):
    return "-" if value is None else f"{value:.{digits}f}"


def print_table(table, rows):
    print()
    print("Goals (ratio = measure median / floor median, from this run; lower is better; met when ratio <= goal)")
    header = ("measure", "median ms", "p99 ms", "floor ms", "ratio", "goal", "met")
    lines = [(label, number(median), number(p99), number(floor), number(ratio, 2), f"<= {goal:g}x",
              "n/a" if ratio is None else ("yes" if ratio <= goal else "no"))
             for label, median, p99, floor, ratio, goal, _ in table]
    widths = [max(len(str(c)) for c in column) for column in zip(header, *lines)]
    def show(cells):
        print(" | ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w) for i, (c, w) in enumerate(zip(cells, widths))))
    show(header)
    print("-+-".join("-" * w for w in widths))
    for line in lines:
        show(line)
    for label, *_, note in table[:len(GOALS)]:
        print(f"  floor of {label}: {note}")
    extras = []
    for clients in (1, 2, 8):
        t = rows.get(f"throughput: {clients} warm client{'s' if clients > 1 else ''}")
        if t:
            extras.append(f"{clients}: {t['per_second']:.0f}/s")
    if extras:
        print("throughput (warm BookRoom, concurrent clients): " + ", ".join(extras))
    cold, peer = rows.get("cold: assistant run, spawned as its floor"), rows.get("peer: MCP SDK spawn+initialize+call")
    if cold and peer:
        print(f"cold (no goal): BookRoom {cold['median']:.1f} ms (to the host's exit) vs the MCP SDK's"
              f" spawn+initialize+call {peer['median']:.1f} ms (to the call's answer)")
    memory = [r for name, r in rows.items() if name.startswith("memory: ")]
    for r in memory:
        print(f"{r['name']}: private {r['private_kib'] / 1024:.1f} MiB, shared {r['shared_kib'] / 1024:.1f} MiB")


def plot(table, path, facts):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as error:
        print(f"(plot not drawn: {error})")
        return
    drawn = [row for row in table if row[4] is not None]
    if not drawn:
        print("(plot not drawn: no goal row has both figures)")
        return
    labels = [row[0] for row in drawn][::-1]
    ratios = [row[4] for row in drawn][::-1]
    goals = [row[5] for row in drawn][::-1]
    colors = ["#2e7d32" if r <= g else "#c62828" for r, g in zip(ratios, goals)]
    figure, axes = plt.subplots(figsize=(10, 0.5 * len(drawn) + 1.8))
    positions = range(len(drawn))
    axes.barh(positions, ratios, color=colors, height=0.6)
    for y, goal in zip(positions, goals):
        axes.plot([goal, goal], [y - 0.4, y + 0.4], color="black", linewidth=2)
    for y, ratio, goal in zip(positions, ratios, goals):
        axes.text(max(ratio, goal) * 1.04, y, f"{ratio:.2f}x (goal {goal:g}x)", va="center", fontsize=8)
    axes.set_yticks(list(positions), labels, fontsize=8)
    axes.set_xscale("log")
    ticks = [t for t in (0.05, 0.1, 0.2, 0.5, 1, 1.5, 2, 3, 5, 10, 20, 50, 100, 200)
             if min(min(ratios), min(goals)) / 1.5 <= t <= max(max(ratios), max(goals)) * 3]
    axes.set_xticks(ticks, [f"{t:g}x" for t in ticks])
    axes.minorticks_off()
    axes.axvline(1.0, color="grey", linewidth=0.8, linestyle=":")
    axes.set_xlabel("ratio: measure / floor (medians, log scale); black bar: the goal; green: met, red: not met")
    axes.set_title("IntentHost Scripts/bench: ratios to floors measured in the same run" + (f"\n{facts}" if facts else ""),
                   fontsize=9)
    axes.set_xlim(min(min(ratios), min(goals)) / 1.5, max(max(ratios), max(goals)) * 3)
    figure.tight_layout()
    figure.savefig(path, dpi=120)
    print(f"plot of the ratios written to {path}")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    rows = load(sys.argv[1])
    table = goal_rows(rows)
    print_table(table, rows)
    plot(table, sys.argv[2], sys.argv[3] if len(sys.argv) == 4 else "")


if __name__ == "__main__":
    main()
