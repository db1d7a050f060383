"""`python -m redline`: the command line; `hook` skips argparse (it runs per tool call)."""

from __future__ import annotations

import os
import sys


def _main() -> int:
    argv = sys.argv[1:]
    try:
        if argv[:1] == ["hook"]:
            # One call, then `os._exit`: the cyclic collector would only walk
            # the modules being loaded (~2% of the start) and free nothing.
            import gc

            gc.disable()
            from redline.cli.hook import fast_main

            return fast_main(argv[1:])
    except BaseException as error:  # noqa: BLE001 - a hook that fails blocks the call
        sys.stderr.write(f"redline blocked this call: the hook failed: {error}\n")
        return 2
    from redline.cli.main import main

    return main(argv)


def _hook_exit(code: int) -> None:
    """End a hook process as soon as its answer is out. The log entry is
    committed and nothing else is pending, so skip the interpreter's teardown
    (tearing down the catalogue costs more than answering). An answer that
    cannot be delivered blocks."""
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except BaseException:  # noqa: BLE001 - the host stopped reading: block
        code = 2
    os._exit(code)


def run() -> None:
    """`python -m redline ...`; installed hooks run it as `python -c 'import
    redline.__main__ as m; m.run()' hook AGENT`, which skips `runpy`."""
    exit_code = _main()
    if sys.argv[1:2] == ["hook"]:
        _hook_exit(exit_code)
    sys.exit(exit_code)


if __name__ == "__main__":
    run()
