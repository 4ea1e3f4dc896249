"""procs.py: the processes of this machine as /proc lists them, for the tests that check a
grading leaves nothing running (tests/cli/signals_test.py, tests/learner/learner_test.py,
tests/classroom/classroom_test.py)."""
import os


def proc_stat(pid):
    """(ppid, pgrp) of a live process, or None (gone, or a zombie: it runs nothing)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # after "pid (comm) "
    if fields[0] == "Z":
        return None
    return int(fields[1]), int(fields[2])


def processes():
    for name in os.listdir("/proc"):
        if name.isdigit():
            st = proc_stat(int(name))
            if st:
                yield int(name), st


def group_leaders_under(pid):
    """The children of pid that lead a process group of their own (cudalab's gradings)."""
    return [p for p, (ppid, g) in processes() if ppid == pid and g == p]


def in_group(pgrp):
    return [p for p, (_, g) in processes() if g == pgrp]


def descendants(pid):
    """Every live process below pid: its children, theirs, and so on."""
    children = {}
    for p, (ppid, _) in processes():
        children.setdefault(ppid, []).append(p)
    found, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            found.append(c)
            todo.append(c)
    return found
