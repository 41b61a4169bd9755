#!/usr/bin/env python3
"""What the libfabric fast path's hooks cost ordinary message passing.

Hook 0007 adds two tests to the OFI netmod's hot path: one per completion-
queue entry (is this remote CQ data for a notification?) and one per netmod
progress call (is a notification queued behind a get or a small-piece put?).
This script counts how many instructions those tests executed in a callgrind
profile and relates them to all instructions of the run.

    cq_overhead.py LIBMPI.so callgrind.out.PID [callgrind.out.PID ...]

The added instructions are found in LIBMPI.so's disassembly (objdump), so the
count needs no debug information: every inlined copy of the per-entry test is
`mov flags; and $MASK; cmp $MASK; je`, every copy of the per-call test is
`mov MPIDI_OFI_global.notify.nwaiting; test; jne` to a call of
MPIDI_OFI_notify_progress.  Profiles must be written
with --dump-instr=yes --compress-pos=no --compress-strings=no.
"""
import re
import subprocess
import sys

# FI_REMOTE_WRITE | FI_REMOTE_CQ_DATA as the compiler folds them
CQE_MASK = "$0x22000"


def added_offsets(lib):
    """File offsets of every instruction hook 0007 added to the hot path."""
    dis = subprocess.run(["objdump", "-d", "--no-show-raw-insn", lib], check=True,
                         capture_output=True, text=True).stdout
    insns = []
    for line in dis.splitlines():
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if m:
            insns.append((int(m.group(1), 16), m.group(2)))
    per_call, per_entry = set(), set()
    calls = {addr for addr, text in insns
             if text.startswith("call") and "<MPIDI_OFI_notify_progress>" in text}
    for i, (addr, text) in enumerate(insns):
        m = re.match(r"jne\s+([0-9a-f]+)", text)
        if m and int(m.group(1), 16) in calls and insns[i - 1][1].startswith("test"):
            per_call.update(a for a, _ in insns[i - 2:i + 1])
        if text.startswith("and    " + CQE_MASK) and insns[i + 1][1].startswith("cmp    " + CQE_MASK):
            per_entry.update(a for a, _ in insns[i - 1:i + 3])
    return per_call, per_entry


def costs(profile, lib):
    """Total Ir of the run, and Ir per instruction address inside LIB.
    Callgrind writes addresses of a shared object as the object's own
    (objdump) addresses, so they compare directly."""
    total, per_addr = 0, {}
    in_lib = skip_next = False
    ir_col = 1
    for line in open(profile):
        if line.startswith("positions:"):
            ir_col = len(line.split()) - 1      # "instr" or "instr line"
        elif line.startswith("summary:"):
            total = int(line.split()[1])
        elif line.startswith("ob="):
            in_lib = line.split("/")[-1].startswith(lib.split("/")[-1])
        elif line.startswith("calls="):
            skip_next = True        # the next line is the call's inclusive cost
        elif line.startswith("0x"):
            if skip_next:
                skip_next = False
            elif in_lib:
                parts = line.split()
                a = int(parts[0], 16)
                per_addr[a] = per_addr.get(a, 0) + int(parts[ir_col])
    return total, per_addr


def main():
    lib, profiles = sys.argv[1], sys.argv[2:]
    per_call, per_entry = added_offsets(lib)
    if not per_call or not per_entry:
        sys.exit("cq_overhead: the added instructions were not found in " + lib)
    for prof in profiles:
        total, per_addr = costs(prof, lib)
        call_ir = sum(per_addr.get(o, 0) for o in per_call)
        entry_ir = sum(per_addr.get(o, 0) for o in per_entry)
        print(f"{prof}: total {total} Ir; per-progress test {call_ir} Ir "
              f"({call_ir // 3} calls), per-CQ-entry test {entry_ir} Ir "
              f"({entry_ir // 4} entries); added {100.0 * (call_ir + entry_ir) / total:.3f}%")


if __name__ == "__main__":
    main()
