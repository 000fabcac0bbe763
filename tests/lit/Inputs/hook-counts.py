#!/usr/bin/env python3
"""Per PTX file: its classifier calls (call prototypes), hooks (RL_DONE labels) and hook clock reads."""
import sys

for path in sys.argv[1:]:
    text = open(path).read()
    print("%s calls %d hooks %d clocks %d" % (path.rsplit("/", 1)[-1].split(".")[0], text.count("rl_proto: "),
                                              text.count("RL_DONE:"), text.count("mov.u32 %rl_h, %clock;")))
