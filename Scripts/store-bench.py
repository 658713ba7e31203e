#!/usr/bin/env python3
"""The store rows of Scripts/bench: read-modify-write increments of one counter per second for 1, 2, 4 and 8
processes, IntentHost's store (the store-stress helper) against SQLite (WAL, synchronous=FULL, BEGIN IMMEDIATE) at
the same durability: every commit is synced before it is acknowledged. Also counts lost updates.

Each row is the median of three alternating rounds of each. With BENCH_RESULTS set, each row is also appended to
that file as a JSON line (`store: N processes`, `store_per_second`, `sqlite_per_second`) for the goal table.

usage: store-bench.py STORE_STRESS WORKDIR [TOTAL]   (TOTAL increments per round, default 3000)"""
import json, os, sqlite3, statistics, subprocess, sys, time
from multiprocessing import Process


def sqlite_worker(path, n):
    db = sqlite3.connect(path, timeout=120, isolation_level=None)
    db.execute("pragma synchronous=full")
    for _ in range(n):
        db.execute("begin immediate")
        value = db.execute("select value from counter where id = 1").fetchone()[0]
        db.execute("update counter set value = ? where id = 1", (value + 1,))
        db.execute("commit")


def main():
    helper, work = sys.argv[1], sys.argv[2]
    total = int(sys.argv[3]) if len(sys.argv) > 3 else 3000
    rounds = 3
    os.makedirs(work, exist_ok=True)
    print()
    print(f"{'store: increments/s':<22} {'processes':>9} {'IntentHost':>11} {'SQLite':>9} {'ratio':>6} {'lost':>9}")
    for processes in (1, 2, 4, 8):
        each = total // processes
        store_rates, sqlite_rates, lost_store, lost_sqlite, failed = [], [], 0, 0, False
        # Alternate the two, three rounds each, so that a slow patch of the disk hits both alike; report medians.
        for round in range(rounds):
            document = os.path.join(work, f"counter-{processes}-{round}.json")
            start = time.perf_counter()
            writers = [subprocess.Popen([helper, "increment", document, str(each), "--quiet"]) for _ in range(processes)]
            failed |= any(w.wait() for w in writers)
            store_rates.append(each * processes / (time.perf_counter() - start))
            stored = int(subprocess.run([helper, "read", document], capture_output=True, text=True).stdout or 0)
            lost_store += each * processes - stored

            database = os.path.join(work, f"counter-{processes}-{round}.sqlite")
            db = sqlite3.connect(database, isolation_level=None)
            db.execute("pragma journal_mode=wal")
            db.execute("create table counter (id integer primary key, value integer)")
            db.execute("insert into counter values (1, 0)")
            db.close()
            start = time.perf_counter()
            workers = [Process(target=sqlite_worker, args=(database, each)) for _ in range(processes)]
            for w in workers:
                w.start()
            for w in workers:
                w.join()
            sqlite_rates.append(each * processes / (time.perf_counter() - start))
            counted = sqlite3.connect(database).execute("select value from counter where id = 1").fetchone()[0]
            lost_sqlite += each * processes - counted
        store_rate, sqlite_rate = statistics.median(store_rates), statistics.median(sqlite_rates)
        lost = f"{lost_store}/{lost_sqlite}" + (" (a writer failed)" if failed else "")
        print(f"{'':<22} {processes:>9} {store_rate:>11.0f} {sqlite_rate:>9.0f} {store_rate / sqlite_rate:>6.2f} {lost:>9}")
        if os.environ.get("BENCH_RESULTS"):
            with open(os.environ["BENCH_RESULTS"], "a") as out:
                out.write(json.dumps({"name": f"store: {processes} processes", "store_per_second": store_rate,
                                      "sqlite_per_second": sqlite_rate, "lost_store": lost_store,
                                      "lost_sqlite": lost_sqlite, "failed": failed}) + "\n")
    print("(median of 3 alternating rounds; lost: increments missing from the final counts, IntentHost/SQLite)")


if __name__ == "__main__":
    main()
