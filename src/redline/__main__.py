"""`python -m redline`: the command line; `hook` skips argparse (it runs per tool call)."""

from __future__ import annotations

import sys


def _main() -> int:
    argv = sys.argv[1:]
    try:
        if argv[:1] == ["hook"]:
            from redline.cli.hook import fast_main

            return fast_main(argv[1:])
    except BaseException as error:  # noqa: BLE001 - a hook that fails blocks the call
        sys.stderr.write(f"redline blocked this call: the hook failed: {error}\n")
        return 2
    from redline.cli.main import main

    return main(argv)


if __name__ == "__main__":
    sys.exit(_main())
