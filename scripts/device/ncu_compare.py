#!/usr/bin/env python3
"""Model against hardware: Nsight Compute's counters of each plain kernel next to
warpscope's counts-mode figures for the same launch, as a Markdown table.
Usage: ncu_compare.py NCU.csv COUNTS.jsonl"""
import csv
import json
import sys

METRICS = {
    "gld_req": "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum",
    "gst_req": "l1tex__t_requests_pipe_lsu_mem_global_op_st.sum",
    "gld_sec": "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
    "gst_sec": "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
    "sld_wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum",
    "sst_wf": "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum",
    "sld_cf": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum",
    "sst_cf": "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum",
    "sld_inst": "smsp__inst_executed_op_shared_ld.sum",
    "sst_inst": "smsp__inst_executed_op_shared_st.sum",
}


def number(s):
    try:
        return float(str(s).replace(",", ""))
    except ValueError:
        return None


def read_ncu(path):
    lines = [l for l in open(path) if l.startswith('"')]
    rows = list(csv.reader(lines))
    if not rows:
        return []
    head = rows[0]
    out = []
    for r in rows[1:]:
        if len(r) != len(head) or r[head.index("ID")] in ("", None) or not r[head.index("ID")].isdigit():
            continue  # the units row
        d = {"kernel": r[head.index("Kernel Name")]}
        for k, m in METRICS.items():
            d[k] = number(r[head.index(m)]) if m in head else None
        out.append(d)
    return out


def model(c):
    t = c["totals"]
    g = lambda space, f: t.get(space, {}).get(f, 0)
    return {
        "gld_req": g("global_ld", "requests"), "gst_req": g("global_st", "requests"),
        "gld_sec": g("global_ld", "sectors"), "gst_sec": g("global_st", "sectors"),
        "sld_wf": g("shared_ld", "wavefronts"), "sst_wf": g("shared_st", "wavefronts"),
        "sld_cf": g("shared_ld", "conflicts"), "sst_cf": g("shared_st", "conflicts"),
        "sld_inst": g("shared_ld", "requests"), "sst_inst": g("shared_st", "requests"),
    }


def cell(hw, mo):
    if hw is None:
        return "n/a"
    if hw == mo:
        return f"{int(mo)}"
    rel = (hw - mo) / mo * 100 if mo else float("inf")
    return f"**{int(hw)}** / {int(mo)} ({rel:+.1f}%)"


def main():
    hw = read_ncu(sys.argv[1])
    counts = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
    cols = ["gld_req", "gld_sec", "gst_req", "gst_sec", "sld_inst", "sld_wf", "sld_cf", "sst_inst", "sst_wf", "sst_cf"]
    print("| case | " + " | ".join(cols) + " |")
    print("|---|" + "---|" * len(cols))
    exact = total = 0
    detail = []
    for i, c in enumerate(counts):
        mo = model(c)
        h = hw[i] if i < len(hw) else {}
        row = []
        for k in cols:
            v = h.get(k)
            total += 1
            exact += v is not None and v == mo[k]
            row.append(cell(v, mo[k]))
        print(f"| {c['case']} | " + " | ".join(row) + " |")
        detail.append({"case": c["case"], "ncu": h, "model": mo})
    json.dump(detail, open(sys.argv[2] + ".compare.json", "w"), indent=1)
    print()
    print(f"cells: bold = hardware / model where they differ; {exact} of {total} figures equal "
          f"({len(hw)} ncu kernels, {len(counts)} model launches)")


if __name__ == "__main__":
    main()
