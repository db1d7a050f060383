"""The gate: a policy, its allowlist and the sessions' approval state put
together, for hooks and the approval service (F-GATE).

`Gate` loads its policy when it is made (a broken policy means the gate
refuses to start, naming `file:line` and the repair) and reloads it when the
file changes; a reload that fails keeps the last good policy and says so on
every decision until the file is fixed. `check_tool_call` judges one call
with a gate made from the environment: `$REDLINE_POLICY`, else
`$REDLINE_HOME/policy.yaml`, else the policy that ships with redline.
"""

from __future__ import annotations

import os
from _thread import allocate_lock  # `threading.Lock`, without loading `threading`
from collections.abc import Mapping

from redline.decision import Decision
from redline.gate import context as contexts
from redline.gate.actions import ToolCall
from redline.gate.effects import Subject
from redline.gate.engine import Evaluation, evaluate, with_notes
from redline.gate.memory import Outcome, fingerprint
from redline.gate.never_run import Guard
from redline.gate.protected import Places
from redline.gate.sessions import Grant, Scope, SessionStore
from redline.gate.world import World
from redline.home import configured_policy
from redline.machine import LocalWorld, code_files, package_tree
from redline.policy.allowlist import FILE_NAME, Allowlist
from redline.policy.load import PolicyError, default_policy_path, load_policy
from redline.policy.model import Policy

TYPE_CHECKING = False  # not `typing`'s: a hook's start never loads `typing` (ADR 0004)
if TYPE_CHECKING:
    from typing import Any


# Paths are strings here: `pathlib` is left off the hook's start.
PathLike = str | os.PathLike[str]


def _stamp(path: str) -> tuple[int, int] | None:
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


class Gate:
    """Policy + allowlist + session state. Safe to share between threads."""

    def __init__(
        self,
        policy_path: PathLike | None = None,
        *,
        home: PathLike | None = None,
        redline_home: PathLike | None = None,
        hermes_home: PathLike | None = None,
        allowlist_path: PathLike | None = None,
        cache_dir: PathLike | None = None,
        gateway_names: tuple[str, ...] = ("redline", "hermes"),
        world: World | None = None,
        agent_homes: Mapping[str, str] | None = None,
    ) -> None:
        self.policy_path = os.fspath(policy_path) if policy_path else default_policy_path()
        self._cache_dir = os.fspath(cache_dir) if cache_dir else None
        self._policy = load_policy(self.policy_path, cache_dir=self._cache_dir)
        self._stamp = _stamp(self.policy_path)
        self._reload_problem: str | None = None
        self._lock = allocate_lock()
        from redline.home import user_home

        # One home for the whole decision: the catalogue's `~`, the protected
        # places and the policy's paths all use it.
        self._home = os.fspath(home) if home else user_home()
        self._redline_home = os.fspath(redline_home) if redline_home else "~/.redline"
        self._hermes_home = os.fspath(hermes_home) if hermes_home else None
        self._gateway_names = gateway_names
        self._agent_homes = dict(agent_homes or {})
        if world is None:
            gate_home = self._redline_home
            if gate_home == "~" or gate_home.startswith("~/"):
                gate_home = self._home.rstrip("/") + gate_home[1:]
            world = LocalWorld(gate_home)
        self._world = world
        if allowlist_path:
            self.allowlist = Allowlist(allowlist_path)
        elif policy_path:
            self.allowlist = Allowlist(os.path.join(os.path.dirname(self.policy_path), FILE_NAME))
        else:
            gate_home = self._redline_home
            if gate_home == "~" or gate_home.startswith("~/"):
                gate_home = self._home.rstrip("/") + gate_home[1:]
            self.allowlist = Allowlist(os.path.join(gate_home, FILE_NAME))
        self._guard = self._build_guard(self._policy)
        self.sessions = SessionStore()

    @classmethod
    def from_environ(
        cls, environ: Mapping[str, str] | None = None, policy_path: PathLike | None = None
    ) -> Gate:
        """A gate for this machine: `policy_path`, else the configured policy."""
        from redline.home import expand_user, home_dir, user_home

        env = os.environ if environ is None else environ
        home = home_dir(env)
        hermes = env.get("HERMES_HOME", "").strip()
        agent_homes = {
            key: expand_user(env[var].strip(), env)
            for key, var in (("codex_home", "CODEX_HOME"), ("claude_home", "CLAUDE_CONFIG_DIR"))
            if env.get(var, "").strip()
        }
        return cls(
            policy_path or configured_policy(env),
            home=user_home(env),
            redline_home=home,
            hermes_home=expand_user(hermes, env) if hermes else None,
            cache_dir=os.path.join(home, "cache"),
            agent_homes=agent_homes,
        )

    def _build_guard(self, policy: Policy) -> Guard:
        lock = self.allowlist.lock_path
        places = Places(
            home=self._home,
            hermes_home=self._hermes_home or policy.hermes_home or "~/.hermes",
            redline_home=self._redline_home,
            extra_config=(self.policy_path, self.allowlist.path, lock),
            extra_trees=package_tree(),
            code_files=code_files(),
            approval_port=policy.approval_port,
            approval_socket=policy.approval_socket,
            gateway_names=self._gateway_names,
            codex_home=self._agent_homes.get("codex_home", "~/.codex"),
            claude_home=self._agent_homes.get("claude_home", "~/.claude"),
        )
        return Guard.build(places, self._world)

    @property
    def policy(self) -> Policy:
        self._maybe_reload()
        return self._policy

    @property
    def guard(self) -> Guard:
        return self._guard

    def _maybe_reload(self) -> None:
        stamp = _stamp(self.policy_path)
        if stamp == self._stamp:
            return
        with self._lock:
            if stamp == self._stamp:
                return
            self._stamp = stamp
            try:
                policy = load_policy(self.policy_path, cache_dir=self._cache_dir)
            except PolicyError as error:
                first = error.issues[0].render(error.source).splitlines()[0] if error.issues else ""
                self._reload_problem = (
                    f"policy `{self.policy_path}` failed to reload ({first}); "
                    "still using the last good policy"
                )
                import logging

                logging.getLogger("redline.gate").warning("%s", self._reload_problem)
                return
            self._policy, self._guard = policy, self._build_guard(policy)
            self._reload_problem = None

    def evaluate(self, call: ToolCall, *, with_state: bool = True) -> Evaluation:
        ctx = contexts.resolve(call.context, call.session)
        policy = self.policy
        granted = None
        memory = None
        if with_state:
            view = self.sessions.view(ctx.session)
            always = self.allowlist.grants()
            memory = view.memory

            def granted_fn(key: str, subject: Subject) -> str | None:
                if (key, subject) in view.grants:
                    return "session"
                return "always" if (key, subject) in always else None

            granted = granted_fn
        evaluation = evaluate(call, ctx, policy, self._guard, granted, memory)
        notes = [*self.allowlist.warnings]
        if self._reload_problem:
            notes.append(self._reload_problem)
        if notes:
            evaluation = evaluation._replace(decision=with_notes(evaluation.decision, notes))
        return evaluation

    def check(self, call: ToolCall) -> Decision:
        return self.evaluate(call).decision

    def record_outcome(
        self,
        session: str | None,
        call: ToolCall,
        outcome: Outcome | str,
        scope: Scope | str = Scope.ONCE,
    ) -> tuple[Grant, ...]:
        """Remember what the human answered. A rejection is remembered for
        the session (F-GATE-7); a timeout is not (the retry is asked again);
        an approval lifts that memory and, for `session` or `always` scope,
        grants what the call asked for. Returns the grants made. Hard lines
        and never-run kinds are never granted."""
        outcome, scope = Outcome(outcome), Scope(scope)
        if session:
            call = call._replace(session=session)
        ctx = contexts.resolve(call.context, call.session)
        evaluation = self.evaluate(call, with_state=False)
        if evaluation.facts is None:
            return ()
        fp = fingerprint(evaluation.facts, evaluation.contributors)
        if outcome is Outcome.TIMEOUT:
            return ()  # nobody said no: the retry is held for the owner again
        if outcome is not Outcome.APPROVED:
            self.sessions.remember(ctx.session, fp, outcome)
            return ()
        self.sessions.forget(ctx.session, fp)
        if evaluation.decision.hardline or scope is Scope.ONCE:
            return ()
        grants = evaluation.asks
        self.sessions.grant(ctx.session, grants)
        if scope is Scope.ALWAYS:
            note = fp.summary
            self.allowlist.add(grants, note)
        return grants


_default_gate: Gate | None = None
_default_lock = allocate_lock()


def default_gate() -> Gate:
    global _default_gate
    if _default_gate is None:
        with _default_lock:
            if _default_gate is None:
                _default_gate = Gate.from_environ()
    return _default_gate


def check_tool_call(
    tool: str,
    args: Mapping[str, Any],
    *,
    cwd: str | None = None,
    context: str | None = None,
    session: str | None = None,
) -> Decision:
    """Allow, ask or deny one tool call, with the reasons and the repair.

    Raises `PolicyError` when the policy cannot be loaded (the gate does not
    start on a broken policy), and `ValueError` for an unknown `context`.
    """
    return default_gate().check(ToolCall(tool, args, cwd, context, session))
