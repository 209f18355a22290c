#!/usr/bin/python3
"""Feed a FIFO other content each time it is opened, for tests of a file that changes under labrun.

    fifo-feed.py FIFO [--stall] FILE...

The n-th opening of FIFO reads FILE n whole. The next one is offered only once every reader has
closed the FIFO (so two openings never read into each other). With --stall the last FILE is
written, and then the FIFO is kept open and silent until this script is killed.
"""
import glob
import os
import sys
import time

fifo = os.path.realpath(sys.argv[1])
stall = sys.argv[2] == "--stall"
files = sys.argv[3:] if stall else sys.argv[2:]


def open_by_others():
    for fd in glob.glob("/proc/[0-9]*/fd/*"):
        if fd.startswith("/proc/%d/" % os.getpid()):
            continue
        try:
            if os.readlink(fd) == fifo:
                return True
        except OSError:
            pass
    return False


for i, name in enumerate(files):
    with open(name, "rb") as src, open(fifo, "wb") as f:
        f.write(src.read())
        f.flush()
        # The reader is past its open() (ours returned with it), but its descriptor may not be in
        # /proc yet: close only once it is, so that "no longer open" below means it closed.
        while not open_by_others():
            time.sleep(0.002)
        if stall and i == len(files) - 1:
            time.sleep(3600)
    while open_by_others():
        time.sleep(0.005)
