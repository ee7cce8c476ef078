"""Per-kernel profiles of a VM call (TVM's tvm.runtime.profiling.Report, the result of
`VirtualMachine.profile`).

The VM times every packed call (each compiled kernel, each builtin) of one run of a function
on the host clock; the report sums them per callee. On a GPU the times are those of the
launches (kernels run asynchronously), not of the kernels.
"""

import json as _json


class Report:
    """Time per callee of one profiled call.

    `calls`: one dict per callee, slowest first: {"Name", "Count", "Duration (us)",
    "Percent"} (percent of the whole call's wall time); `total_us`: that wall time.
    """

    def __init__(self, total_us, calls):
        self.total_us = float(total_us)
        self.calls = sorted(calls, key=lambda c: -c["Duration (us)"])

    @staticmethod
    def from_vm_record(record):
        """From the VM's flat record [total_ns, name, calls, ns, ...]."""
        total = int(record[0]) / 1e3
        calls = []
        for k in range(1, len(record), 3):
            us = int(record[k + 2]) / 1e3
            calls.append({"Name": str(record[k]), "Count": int(record[k + 1]), "Duration (us)": us,
                          "Percent": 100.0 * us / total if total > 0 else 0.0})
        return Report(total, calls)

    def top(self, n=5):
        """The `n` callees that took the most time."""
        return self.calls[:n]

    def table(self, sort=True, top=None):
        """A text table, slowest callee first, with the total on the last line."""
        rows = self.calls if sort else sorted(self.calls, key=lambda c: c["Name"])
        rows = rows[:top] if top else rows
        width = max([len("Name")] + [len(c["Name"]) for c in rows])
        lines = ["%-*s %7s %14s %8s" % (width, "Name", "Count", "Duration (us)", "Percent")]
        for c in rows:
            lines.append("%-*s %7d %14.1f %7.1f%%" % (width, c["Name"], c["Count"],
                                                      c["Duration (us)"], c["Percent"]))
        kernels = sum(c["Duration (us)"] for c in self.calls)
        lines.append("%-*s %7s %14.1f %7.1f%%  (kernels %.1f us, the rest is the VM)" % (
            width, "Total", "", self.total_us, 100.0, kernels))
        return "\n".join(lines)

    def json(self):
        return _json.dumps({"total_us": self.total_us, "calls": self.calls})

    def __str__(self):
        return self.table()
