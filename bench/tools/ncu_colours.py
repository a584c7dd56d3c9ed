#!/usr/bin/env python3
"""Where a sweep's time goes, colour by colour: reads an `ncu --csv` log of one sweep's colour
launches (one launch per colour, in order) with the metrics gpu__time_duration.sum,
dram__bytes_read.sum, dram__bytes_write.sum, lts__throughput.avg.pct_of_peak_sustained_elapsed,
launch__waves_per_multiprocessor and sm__warps_active.avg.pct_of_peak_sustained_active, and
prints a table: each launch's time, DRAM bytes, DRAM rate as a share of the copy bandwidth
(--copy_gbs, measured in the same session), L2 throughput, waves and active warps; then the
rate of the launches at or above --large_waves waves, and the sweep's share of copy if every
launch ran at that rate. --plot FILE draws time and rates by colour. Reads .csv or .csv.gz."""
import argparse
import csv
import gzip
import io
import sys


def launches(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8", errors="replace") as f:
        text = f.read()
    start = text.find('"ID"')
    if start < 0:
        sys.exit(f"{path}: no ncu CSV table found")
    by = {}
    for r in csv.DictReader(io.StringIO(text[start:])):
        m = by.setdefault(int(r["ID"]), {"kernel": r["Kernel Name"].split("<")[0].split("(")[0].replace("void ", "")})
        try:
            m[r["Metric Name"]] = float(r["Metric Value"].replace(",", ""))
        except ValueError:
            pass
    return [by[k] for k in sorted(by)]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("csv")
    ap.add_argument("--copy_gbs", type=float, required=True, help="device-to-device copy bandwidth, GB/s")
    ap.add_argument("--large_waves", type=float, default=2.0)
    ap.add_argument("--plot")
    ap.add_argument("--title", default="")
    a = ap.parse_args()
    rows = launches(a.csv)
    print("| colour | kernel | us | DRAM MB | DRAM, % of copy | L2 throughput % | waves | warps active % |")
    print("|---:|---|---:|---:|---:|---:|---:|---:|")
    t_all = b_all = t_large = b_large = 0.0
    for c, m in enumerate(rows):
        us = m["gpu__time_duration.sum"] / 1e3
        mb = (m["dram__bytes_read.sum"] + m["dram__bytes_write.sum"]) / 1e6
        m["pct_copy"] = mb / us / a.copy_gbs * 1e5  # MB/us = TB/s
        t_all += us
        b_all += mb
        if m["launch__waves_per_multiprocessor"] >= a.large_waves:
            t_large += us
            b_large += mb
        print(f"| {c} | {m['kernel']} | {us:.1f} | {mb:.1f} | {m['pct_copy']:.1f} | "
              f"{m['lts__throughput.avg.pct_of_peak_sustained_elapsed']:.1f} | "
              f"{m['launch__waves_per_multiprocessor']:.2f} | {m['sm__warps_active.avg.pct_of_peak_sustained_active']:.1f} |")
    large = b_large / t_large / a.copy_gbs * 1e5
    print(f"\nall launches: {t_all:.1f} us, {b_all:.0f} MB, {b_all / t_all / a.copy_gbs * 1e5:.1f} % of copy")
    print(f"launches of >= {a.large_waves:g} waves: {t_large:.1f} us ({100 * t_large / t_all:.1f} % of the time), "
          f"{100 * b_large / b_all:.1f} % of the bytes, {large:.1f} % of copy")
    print(f"every launch at that rate: {b_all / (large * a.copy_gbs / 1e5):.1f} us")
    if a.plot:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
        x = list(range(len(rows)))
        fig, (ax0, ax1) = plt.subplots(1, 2, figsize=(10, 3.6))
        ax0.bar(x, [m["gpu__time_duration.sum"] / 1e3 for m in rows], color="tab:blue")
        ax0.set_xlabel("colour")
        ax0.set_ylabel("time, us")
        ax0.set_title("time by colour")
        ax1.plot(x, [m["pct_copy"] for m in rows], "o-", label="DRAM rate, % of copy")
        ax1.plot(x, [m["lts__throughput.avg.pct_of_peak_sustained_elapsed"] for m in rows], "s-",
                 label="L2 throughput, % of peak")
        ax1.plot(x, [m["sm__warps_active.avg.pct_of_peak_sustained_active"] for m in rows], "^-",
                 label="warps active, % of peak")
        ax1.axhline(85, color="grey", ls=":", lw=1)
        ax1.set_xlabel("colour")
        ax1.set_ylim(0, 100)
        ax1.set_title("rates by colour")
        ax1.legend(fontsize=8, loc="lower left")
        if a.title:
            fig.suptitle(a.title, fontsize=10)
        fig.tight_layout()
        fig.savefig(a.plot, dpi=110)


if __name__ == "__main__":
    main()
