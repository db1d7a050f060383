"""`redline propose`: what the agent may only propose (F-APPROVE-5).

The service shows the owner the exact words and carries the action out only
on their approval; this command waits for that answer (exit 0: done; 4: not
done, with the reason as JSON on stdout). `redline propose question` prints
the open community question to answer.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from redline.cli import exitcodes

KINDS = {
    "share-digest": "share_digest",
    "revoke-digest": "revoke_digest",
    "vote": "village_vote",
    "intention": "publish_intention",
}


def add_parser(sub: Any, name: str, help_text: str) -> None:
    parser = sub.add_parser(name, help=help_text, description=__doc__)
    parser.add_argument("what", choices=[*KINDS, "question"])
    parser.add_argument("--text", help="share-digest, intention: the exact words")
    parser.add_argument("--digest", help="revoke-digest: the shared digest's id")
    parser.add_argument("--question", help="vote: the open question's id")
    parser.add_argument("--answer", help="vote: the answer to propose")
    parser.add_argument("--session", help="the agent's session")
    parser.add_argument("--agent", default="agent", help="who proposes")
    parser.add_argument("--service-key", help="the service's public key (default: the pinned file)")
    parser.set_defaults(handler=run)


def run(args: argparse.Namespace) -> int:
    from redline.approve.client import propose_via_service
    from redline.approve.paths import ServicePaths
    from redline.approve.wire import Disconnected, Unreachable, exchange
    from redline.home import home_dir

    home = home_dir()
    if args.what == "question":
        try:
            _, reply = exchange(ServicePaths(home).hook_socket, "GET", "/v1/questions/open")
        except (Unreachable, Disconnected) as err:
            sys.stderr.write(f"redline propose: {err}\n")
            return exitcodes.ERROR
        sys.stdout.write(json.dumps(reply) + "\n")
        return exitcodes.ALLOW
    fields = {"text": args.text, "digest": args.digest}
    fields.update({"question": args.question, "answer": args.answer})
    body = {key: value for key, value in fields.items() if value is not None}
    decision = propose_via_service(
        KINDS[args.what],
        body,
        session=args.session,
        agent=args.agent,
        home=home,
        key=args.service_key,
    )
    sys.stdout.write(json.dumps(decision.to_json()) + "\n")
    return exitcodes.BY_VERDICT[decision.verdict]
