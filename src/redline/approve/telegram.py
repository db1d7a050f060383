"""The Telegram approval bot (F-APPROVE-4, F-INBOUND-1).

Each held call goes to every paired owner chat as a message with the exact
command (secrets redacted, monospace), the rule hits, the agent, session and
context, and four buttons: approve once, for this session, always, reject.
When the call is settled the message is edited to say how (and "expired" at
the timeout). Only paired senders are heard: anyone else's messages and taps
are ignored and logged. `/pair CODE` pairs a chat with a code from `redline
pair telegram`; `/pending` and `/history` list calls; `/reject ID REASON`
rejects with a reason. A "yes" typed in chat approves nothing.
"""

from __future__ import annotations

import html
import logging
import time
from typing import Any

from telegram import InlineKeyboardButton, InlineKeyboardMarkup, Update
from telegram.error import TelegramError
from telegram.ext import (
    Application,
    CallbackQueryHandler,
    CommandHandler,
    ContextTypes,
    MessageHandler,
    filters,
)

from redline.approve.pending import Held, Kind, State
from redline.approve.service import AnswerError, Service
from redline.pairing import Result

log = logging.getLogger("redline.approve.telegram")

CHANNEL = "telegram"
SCOPES = {"once": "Approve once", "session": "For this session", "always": "Always"}
YES = {"yes", "y", "ok", "approve", "approved", "go", "sure", "yes please", "do it"}
LIMIT = 3500


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
    ) -> None:
        self.service = service
        self.pairing = service.pairing
        self.poll_timeout = poll_timeout
        builder = Application.builder().token(token)
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
    async def held(self, held: Held) -> None:
        for owner in self.pairing.paired(CHANNEL):
            message = await self.app.bot.send_message(
                chat_id=int(owner.sender),
                text=render(held),
                parse_mode="HTML",
                reply_markup=buttons(held),
            )
            self.service.pending.note(held.id, CHANNEL, owner.sender, str(message.message_id))

    async def settled(self, held: Held) -> None:
        for chat, message in self.service.pending.notices(held.id, CHANNEL):
            try:
                await self.app.bot.edit_message_text(
                    chat_id=int(chat), message_id=int(message), text=render(held), parse_mode="HTML"
                )
            except TelegramError as err:
                log.warning("could not edit the message for %s in %s: %s", held.id, chat, err)

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
            await self.app.bot.send_message(update.effective_chat.id, text, parse_mode="HTML")

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
                message = await self.app.bot.send_message(
                    chat.id, render(held), parse_mode="HTML", reply_markup=buttons(held)
                )
                self.service.pending.note(held.id, CHANNEL, str(chat.id), str(message.message_id))

    async def _history(self, update: Update, context: ContextTypes.DEFAULT_TYPE) -> None:
        if self._owner(update, "/history") is None:
            return
        rows = self.service.pending.answered(10)
        lines = [
            f"<code>{held.id}</code> {html.escape(held.shown[:80])}\n  {outcome_line(held)}"
            for held in rows
        ]
        await self._reply(update, "\n".join(lines) or "No answered calls yet.")

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
