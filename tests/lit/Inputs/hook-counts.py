#!/usr/bin/env python3
"""Per PTX file: its classifier calls (call prototypes), hooks (RL_DONE labels) and hook clock reads;
then the hooks' shape: how many shared loads each issues before its first branch (the block's flag
with the warp's gate and mask, under launch sampling), and how many of its pending-bit clears run
on one lane (predicated on %lanemask_lt)."""
import re
import sys

for path in sys.argv[1:]:
    text = open(path).read()
    name = path.rsplit("/", 1)[-1].split(".")[0]
    print("%s calls %d hooks %d clocks %d" % (name, text.count("rl_proto: "), text.count("RL_DONE:"),
                                              text.count("mov.u32 %rl_h, %clock;")))
    asms = [a.split("// end inline asm")[0] for a in text.split("// begin inline asm")[1:]]
    hooks = [a for a in asms if "RL_DONE:" in a]
    loads = sorted({h.split(" bra ")[0].count("ld.volatile.shared") for h in hooks})
    clears = [h for h in hooks if "red.shared.and" in h]
    # The first lane: predicated on it directly, or (a site's first round, __rl_site_once) on it
    # and on whether the round ended.
    one_lane = [h for h in clears if re.search(r"%lanemask_lt;.*(setp\.eq\.and.*@%rl_q|"
                                               r"setp\.eq\.u32 %rl_q, %rl_e, 0;.*and\.pred %rl_r, %rl_r, %rl_q;.*@%rl_r)"
                                               r" red\.shared\.and", h, re.S)]
    print("%s loads-before-branch %s clears %d one-lane %d" % (name, ",".join(map(str, loads)) or "-", len(clears),
                                                              len(one_lane)))
