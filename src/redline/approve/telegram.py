"""The Telegram approval bot (F-APPROVE-4, F-INBOUND-1).

Each held call goes to every paired owner chat as a message with the exact
command (secrets redacted, monospace), the rule hits, the agent, session and
context, and four buttons: approve once, for this session, always, reject.
When the call is settled the message is edited to say how (and "expired" at
the timeout). Only paired senders are heard: anyone else's messages and taps
are ignored and logged. `/pair CODE` pairs a chat with a code from `redline
pair telegram`; `/pending` and `/history` list calls; `/reject ID REASON`
rejects with a reason; `/head` shows the log's head. A "yes" typed in chat
approves nothing.

Under faults: every send and edit is retried (`telegram_retry`); a notice
that still fails is reported to the service, which shows and logs it. A
message whose send returned only after its call was settled is edited to
the outcome at once, and a tap on any stale message edits that message.
"""

from __future__ import annotations

import asyncio
import html
import logging
import time
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import BadRequest, TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from redline.approve.pending import Held, Kind, State
from redline.approve.risk_summary import risk_line
from redline.approve.service import AnswerError, Service
from redline.approve.telegram_retry import Retry
from redline.audit.entry import Head
from redline.pairing import Result

log = logging.getLogger("redline.approve.telegram")

CHANNEL = "telegram"
SCOPES = {"once": "Approve once", "session": "For this session", "always": "Always"}
YES = {"yes", "y", "ok", "approve", "approved", "go", "sure", "yes please", "do it"}
LIMIT = 3500
REQUEST_TIMEOUT_S = 10.0
"""Each request to the Bot API (one attempt of a send or an edit)."""
EDITED_KEPT = 10_000
T = TypeVar("T")


def _code(text: str) -> str:
    if len(text) > LIMIT:
        text = text[:LIMIT] + "…"
    return f"<pre>{html.escape(text)}</pre>"


def render(held: Held, now: float | None = None) -> str:
    """The message for a held call (HTML)."""
    decision = held.decision_value
    title = "Proposal" if held.kind is Kind.PROPOSAL else "Approval needed"
    lines = [f"<b>{title}</b> · <code>{held.id}</code>"]
    lines.append(
        f"agent <code>{html.escape(held.agent or '-')}</code> · session "
        f"<code>{html.escape(held.session or '-')}</code> · context "
        f"<code>{html.escape(held.context or '-')}</code> · tool "
        f"<code>{html.escape(held.tool or '-')}</code>"
    )
    lines.append(f"in <code>{html.escape(held.cwd or '(no workdir given)')}</code>")
    lines.append(_code(held.shown))
    for hit in decision.get("hits", []):
        lines.append(
            f"• <code>{html.escape(str(hit.get('id')))}</code>: "
            f"{html.escape(str(hit.get('description', '')))}"
        )
    if not decision.get("hits") and decision.get("reason"):
        lines.append(html.escape(str(decision["reason"])))
    risk = risk_line(decision.get("opinion"))
    if risk is not None:
        lines.append(f"🤖 <i>{html.escape(risk)}</i>")
    if held.state is State.PENDING:
        left = int(max(0.0, held.deadline - (time.time() if now is None else now)))
        lines.append(f"Waiting up to {left // 60}m{left % 60:02d}s for your answer.")
    else:
        lines.append(outcome_line(held))
    return "\n".join(lines)


def outcome_line(held: Held) -> str:
    if held.state is State.TIMEOUT:
        return "⌛ <b>Expired</b>: nobody answered in time; it did not run."
    who = html.escape(f"{held.answered_by or 'owner'} via {held.channel or '-'}")
    if held.state is State.APPROVED:
        return f"✅ <b>Approved</b> ({html.escape(held.scope or 'once')}) by {who}."
    reason = f": {html.escape(held.reason)}" if held.reason else ""
    return f"❌ <b>Rejected</b> by {who}{reason}."


def head_text(head: Head | None, why: str) -> str:
    """The log's head as the owner keeps it (HTML)."""
    if head is None:
        return f"<b>Log head</b> ({html.escape(why)}): the log is empty."
    return (
        f"<b>Log head</b> ({html.escape(why)}): entry {head.seq}\n"
        f"<code>{head}</code>\n"
        f"Check the log against it: <code>redline log verify --head {head}</code>"
    )


def buttons(held: Held) -> InlineKeyboardMarkup:
    if held.kind is Kind.PROPOSAL:
        row = [InlineKeyboardButton("Approve", callback_data=f"ok:{held.id}:once")]
    else:
        row = [
            InlineKeyboardButton(label, callback_data=f"ok:{held.id}:{scope}")
            for scope, label in SCOPES.items()
        ]
    reject = [InlineKeyboardButton("Reject", callback_data=f"no:{held.id}")]
    return InlineKeyboardMarkup([row, reject])


class TelegramChannel:
    name = CHANNEL

    def __init__(
        self,
        service: Service,
        token: str,
        *,
        base_url: str | None = None,
        poll_timeout: float = 10.0,
        request_timeout: float = REQUEST_TIMEOUT_S,
        retry: Retry | None = None,
    ) -> None:
        self.service = service
        self.pairing = service.pairing
        self.poll_timeout = poll_timeout
        self.retry = retry or Retry()
        self._edited: OrderedDict[tuple[str, str], None] = OrderedDict()
        t = request_timeout
        builder = (
            Application.builder()
            .token(token)
            .connect_timeout(t)
            .read_timeout(t)
            .write_timeout(t)
            .pool_timeout(t)
        )
        if base_url:
            root = base_url.rstrip("/")
            builder = builder.base_url(f"{root}/bot").base_file_url(f"{root}/file/bot")
        self.app: Application[Any, Any, Any, Any, Any, Any] = builder.build()
        handlers: list[Any] = [
            CommandHandler("start", self._start),
            CommandHandler("pair", self._pair),
            CommandHandler("pending", self._pending),
            CommandHandler("history", self._history),
            CommandHandler("reject", self._reject),
            CommandHandler("head", self._head),
            CallbackQueryHandler(self._tap),
            MessageHandler(filters.ALL, self._other),
        ]
        for handler in handlers:
            self.app.add_handler(handler)

    # -- lifecycle
    async def start(self) -> None:
        await self.app.initialize()
        await self.app.start()
        if self.app.updater is not None:
            await self.app.updater.start_polling(
                timeout=int(self.poll_timeout), allowed_updates=Update.ALL_TYPES
            )
        for held in self.service.pending.waiting():
            if not self.service.pending.notices(held.id, CHANNEL):
                await self.held(held)

    async def stop(self) -> None:
        if self.app.updater is not None and self.app.updater.running:
            await self.app.updater.stop()
        if self.app.running:
            await self.app.stop()
        await self.app.shutdown()

    # -- the service's news
    async def _send(self, send: Callable[[], Awaitable[T]], what: str) -> T:
        return await self.retry.run(send, what)

    async def held(self, held: Held) -> None:
        owners = [owner.sender for owner in self.pairing.paired(CHANNEL)]
        await asyncio.gather(*(self._notify(held, chat) for chat in owners))

    async def _notify(self, held: Held, chat: str) -> None:
        try:
            message = await self._send(
                lambda: self.app.bot.send_message(
                    chat_id=int(chat),
                    text=render(held),
                    parse_mode="HTML",
                    reply_markup=buttons(held),
                ),
                f"the notice of {held.id} to {chat}",
            )
        except TelegramError as err:
            await self.service.notice_failed(held, CHANNEL, chat, str(err))
            return
        self.service.pending.note(held.id, CHANNEL, chat, str(message.message_id))
        # Settled while the send was in flight: `settled` did not know this message.
        current = self.service.pending.get(held.id)
        if current is not None and current.state is not State.PENDING:
            await self._edit(current, chat, str(message.message_id))

    async def settled(self, held: Held) -> None:
        notices = self.service.pending.notices(held.id, CHANNEL)
        await asyncio.gather(*(self._edit(held, chat, message) for chat, message in notices))

    async def _edit(self, held: Held, chat: str, message: str) -> None:
        """Edit one message to the outcome, taking its buttons away (once)."""
        key = (chat, message)
        if key in self._edited:
            return
        self._edited[key] = None
        while len(self._edited) > EDITED_KEPT:
            self._edited.popitem(last=False)
        try:
            await self._send(
                lambda: self.app.bot.edit_message_text(
                    chat_id=int(chat), message_id=int(message), text=render(held), parse_mode="HTML"
                ),
                f"the edit of {held.id} in {chat}",
            )
        except BadRequest as err:
            if "not modified" not in str(err).lower():
                log.error("could not edit the message for %s in %s: %s", held.id, chat, err)
        except TelegramError as err:
            self._edited.pop(key, None)  # a later tap on it may still edit it
            problem = f"its message {message} still shows buttons (the edit failed: {err})"
            await self.service.notice_failed(held, CHANNEL, chat, problem)

    async def head(self, head: Head | None, why: str) -> None:
        text = head_text(head, why)
        for owner in self.pairing.paired(CHANNEL):
            await self._say(int(owner.sender), text, "the log head")

    async def _say(self, chat: int, text: str, what: str) -> None:
        await self._send(
            lambda: self.app.bot.send_message(chat_id=chat, text=text, parse_mode="HTML"),
            f"{what} to {chat}",
        )

    # -- who is speaking
    def _owner(self, update: Update, what: str) -> str | None:
        user = update.effective_user
        sender = str(user.id) if user is not None else "?"
        if user is not None and self.pairing.is_paired(CHANNEL, sender):
            return user.username or user.first_name or sender
        log.warning("ignored %s from unpaired Telegram user %s", what, sender)
        return None

    async def _reply(self, update: Update, text: str) -> None:
        if update.effective_chat is not None:
            await self._say(update.effective_chat.id, text, "a reply")

    # -- handlers
    async def _start(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self._owner(update, "/start") is not None:
            await self._reply(update, "This chat is paired: approval requests arrive here.")

    async def _pair(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        user, chat = update.effective_user, update.effective_chat
        if user is None or chat is None or chat.type != "private":
            return
        code = " ".join(context.args or [])
        result = self.pairing.redeem(CHANNEL, str(user.id), code, label=user.username or "")
        log.warning("pairing attempt from Telegram user %s: %s", user.id, result.value)
        if result is Result.PAIRED:
            await self._reply(update, "Paired. Approval requests will arrive in this chat.")

    async def _pending(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self._owner(update, "/pending") is None:
            return
        waiting = self.service.pending.waiting()
        if not waiting:
            await self._reply(update, "Nothing is waiting for you.")
        for held in waiting:
            chat = update.effective_chat
            if chat is not None:
                await self._notify(held, str(chat.id))

    async def _history(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self._owner(update, "/history") is None:
            return
        rows = self.service.pending.answered(10)
        lines = [
            f"<code>{held.id}</code> {html.escape(held.shown[:80])}\n  {outcome_line(held)}"
            for held in rows
        ]
        await self._reply(update, "\n".join(lines) or "No answered calls yet.")

    async def _head(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self._owner(update, "/head") is not None:
            await self._reply(update, head_text(self.service.head(), "as you asked"))

    async def _reject(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        who = self._owner(update, "/reject")
        if who is None:
            return
        args = context.args or []
        if not args:
            await self._reply(update, "Use <code>/reject ID reason</code>.")
            return
        try:
            await self.service.answer(
                args[0], State.REJECTED, by=who, channel=CHANNEL, reason=" ".join(args[1:])
            )
        except AnswerError as err:
            await self._reply(update, html.escape(str(err)))

    async def _tap(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        query = update.callback_query
        who = self._owner(update, "a button tap")
        if query is None or who is None:
            return
        verb, _, rest = (query.data or "").partition(":")
        held_id, _, scope = rest.partition(":")
        state = State.APPROVED if verb == "ok" else State.REJECTED
        try:
            held = await self.service.answer(
                held_id, state, by=who, channel=CHANNEL, scope=scope or None
            )
            note = f"{held.state.value} ({held.scope})" if held.scope else held.state.value
        except AnswerError as err:
            note = str(err)
            current = self.service.pending.get(held_id)
            message = query.message
            if current is not None and current.state is not State.PENDING and message is not None:
                # A stale message (say a send that timed out but arrived): edit it too.
                await self._edit(current, str(message.chat.id), str(message.message_id))
        await query.answer(note[:190])

    async def _other(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        message = update.effective_message
        if self._owner(update, "a message") is None or message is None:
            return
        text = (message.text or "").strip().lower().rstrip("!.")
        if text in YES:
            await self._reply(
                update,
                "A typed yes approves nothing. Use the buttons under the request "
                "(or /pending to see them again).",
            )
