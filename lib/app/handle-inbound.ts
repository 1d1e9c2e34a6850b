import { eventClaimSeconds } from "../channels/channel-specs.ts";
import type { ChannelRegistry } from "../channels/chat-channel.ts";
import type { ControlAction, Inbound } from "../channels/inbound.ts";
import { validateAnswers } from "../questions/answers.ts";
import { InvalidAnswerError } from "../questions/errors.ts";
import { type ActingIn, answerRefusal, asSeenBy, type QuestionRecord } from "../questions/question-record.ts";
import { copiesRoom, draftsFit, MAX_REPOSTS_IN_CHAT } from "../questions/record-budget.ts";
import type { Answers, Question } from "../questions/schema.ts";
import { voteOf } from "../questions/votes.ts";
import { isItemTooLarge, type QuestionStore } from "../store/question-store.ts";
import type { AnswerLinks } from "../web/answer-link.ts";
import {
  AlreadyAnsweredError,
  AlreadyResolvedError,
  NotOwnerError,
  OnlyOwnerCancelsError,
  VotesBusyError,
  VotesFullError,
} from "./errors.ts";
import { firstPending } from "./first-pending.ts";
import type { InboundOutcome, InvalidReason } from "./inbound-outcome.ts";
import type { Resolution, ResolveQuestion } from "./resolve-question.ts";
import { answerRefused, interpretTypedReply } from "./typed-reply.ts";

export type { InboundOutcome } from "./inbound-outcome.ts";

export interface HandleInboundDeps {
  store: QuestionStore;
  resolve: ResolveQuestion;
  channels: ChannelRegistry;
  /** Makes the link a tapper of "Answer in browser" is handed. */
  links: AnswerLinks;
  now: () => number;
}

/** A control that does not fit the question it names. */
const MISMATCH: InvalidReason = { kind: "control_mismatch" };

/**
 * The shared inbound pipeline of every chat channel: dedupe → route to a question (button id, reply-to or
 * thread, else — for commands and text addressed to the bot — the sender's oldest pending question in that
 * chat) → owner check → resolve. All lookups are by key or by the owner's pending index.
 *
 * @example
 * const outcome = await handleInbound({ platform: "telegram", actor: "telegram:42", chatId: "42",
 *   kind: "text", text: "2", addressed: true, dedupeKey: "1001" });
 */
export function createHandleInbound(deps: HandleInboundDeps) {
  const { store, resolve, now } = deps;

  /**
   * The question an inbound event is about. `listed`: it was found in the pending listing, whose indexes
   * project what a listing shows — not the stepper's draft. A line that replies to nothing goes to the
   * sender's oldest pending question in that chat as its owner, else as an answerer posted to there.
   */
  async function route(inbound: Inbound): Promise<{ record?: QuestionRecord; listed?: true }> {
    const byId = async (id: string) => {
      const record = await store.get(id, now());
      return record ? { record } : {};
    };
    if (inbound.kind === "control" || inbound.kind === "form") return byId(inbound.questionId);
    if (inbound.replyToMessageId !== undefined) {
      const id = await store.findByMessage(inbound.platform, inbound.chatId, inbound.replyToMessageId);
      if (id !== undefined) return byId(id);
    }
    // The one place the group rule holds for every platform: typed text that replies to no question answers
    // only when it was addressed to the bot. Commands always are.
    if (inbound.kind === "text" && !inbound.addressed) return {};
    const record = await firstPending(store, { owner: inbound.actor }, now(), (candidate) =>
      candidate.deliveries.some((d) => d.channel === inbound.platform && d.chatId === inbound.chatId),
    );
    if (record) return { record, listed: true };
    const asAnswerer = await postedToAnswerer(inbound);
    return asAnswerer ? { record: asAnswerer } : {};
  }

  /**
   * For a person answerer other than the owner, typing in their own chat with the bot: the oldest pending
   * question posted to them there, found by key (the private-chat index kept with the copies), not by owner.
   */
  async function postedToAnswerer(inbound: Inbound): Promise<QuestionRecord | undefined> {
    const ids = await store.findPrivateQuestions(inbound.platform, inbound.chatId, inbound.actor);
    if (ids.length === 0) return undefined;
    const read = await Promise.all(ids.map((id) => store.get(id, now())));
    const postedHere = read.filter(
      (record): record is QuestionRecord =>
        record?.status === "pending" &&
        record.deliveries.some(
          (d) =>
            d.channel === inbound.platform && d.chatId === inbound.chatId && d.privateTo === inbound.actor,
        ),
    );
    return postedHere.sort((a, b) => a.createdAtMs - b.createdAtMs)[0];
  }

  /**
   * Runs a resolution; losing a race to another answer reports the final state instead. A vote that was kept
   * but did not close says how many more it waits for (an abstention, that the others can still answer); a
   * second vote from the same person (or a cancel by someone other than the owner) changes nothing and is
   * told so.
   */
  async function settle(id: string, run: () => Promise<Resolution>): Promise<InboundOutcome> {
    try {
      const { record, more, abstained, run: resumed } = await run();
      if (more !== undefined && record.status === "pending") {
        return abstained === true
          ? { kind: "abstained", record }
          : { kind: "recorded_waiting", record, more };
      }
      // Only the run's own word: a resume that failed for a passing reason is the stream's to retry.
      return { kind: "resolved", record, ...(resumed === "not_waiting" && { notWaiting: true as const }) };
    } catch (error) {
      const kind = refusalKind(error);
      if (kind === undefined) throw error;
      // The person is told the question as it now is (ended, or still waiting for others).
      const record = await store.get(id, now());
      if (!record) throw error;
      return { kind, record };
    }
  }

  /**
   * Answers to some of a prompt's questions — a stepper's step, an Other… modal, a form, a typed line —
   * merged with what earlier steps kept (`record.draft`). Complete, and on the last step or not stepping at
   * all: every answer goes through the answer path at once. Otherwise the merge is kept as the draft (never
   * an answer) and the person is shown where to go on: from a step, the next one (or the first still open
   * after the last); without one, what it recorded and which questions are still needed. `own`: what this
   * event itself gave, where `given` also holds answers kept before (a typed line's earlier lines).
   */
  async function contribute(
    record: QuestionRecord,
    given: Answers,
    from: Inbound,
    step?: number,
    own: Answers = given,
  ): Promise<InboundOutcome> {
    const stepQuestion = step === undefined ? undefined : record.questions[step];
    // A step submitted with nothing in it (a blank Other…) answers nothing and moves nowhere.
    if (stepQuestion && Object.keys(given).length === 0) {
      return { kind: "incomplete", record, recorded: {}, missing: [stepQuestion] };
    }
    const merged: Answers = { ...record.draft, ...given };
    const missing = record.questions.filter((q) => !Object.hasOwn(merged, q.id));
    const onLastStep = step === undefined || step >= record.questions.length - 1;
    if (missing.length === 0 && onLastStep) return answer(record, merged, from);
    let checked: Answers;
    try {
      // What is kept is checked now (an option that is not one, a blank value), not only at the end.
      checked = validateAnswers(
        record.questions.filter((q) => Object.hasOwn(given, q.id)),
        given,
      );
    } catch (error) {
      if (!(error instanceof InvalidAnswerError)) throw error;
      return { kind: "invalid", record, reason: answerRefused(error) };
    }
    // From a step before the last, the stepper moves on; otherwise (the last step, a typed line, a form) it
    // goes to the first question still open — the one "Still needed" names first, which a plain line answers.
    const next = onLastStep ? record.questions.indexOf(missing[0] as Question) : (step as number) + 1;
    const saved = await keepDraft(record, { ...record.draft, ...checked }, next, from);
    if (saved.kind !== "step") return saved;
    if (step !== undefined) return saved;
    const recorded = Object.fromEntries(Object.entries(checked).filter(([id]) => Object.hasOwn(own, id)));
    return { kind: "incomplete", record: saved.record, recorded, missing };
  }

  /**
   * Writes the draft and the step the stepper shows next (only while the question is still pending): with
   * several answerers, as the person's own (`drafts`), and the record returned as they see it.
   */
  async function keepDraft(
    record: QuestionRecord,
    draft: Answers,
    step: number,
    from: Inbound,
  ): Promise<InboundOutcome> {
    const person = record.drafts === undefined ? undefined : from.actor;
    // Only several people's drafts can grow without bound. Concurrent steps of different people are each
    // measured against the drafts read, so together they may pass the budget by a few drafts: the budget
    // leaves the item that much room (lib/questions/schema.ts).
    if (
      person !== undefined &&
      record.drafts &&
      !draftsFit(record.drafts, person, { answers: draft, step })
    ) {
      return { kind: "full", record: asSeenBy(record, from.actor) };
    }
    const saved = await store.saveDraft(record.id, draft, step, now(), person).catch((error: unknown) => {
      if (isItemTooLarge(error)) return { kind: "full" as const };
      throw error;
    });
    if (saved.kind === "full") return { kind: "full", record: asSeenBy(record, from.actor) };
    if (saved.kind === "not_found") return { kind: "ignored" };
    if (saved.kind === "not_pending") return { kind: "ended", record: saved.record };
    return { kind: "step", record: asSeenBy(saved.record, from.actor), questionIndex: step };
  }

  async function answer(record: QuestionRecord, answers: Answers, from: Inbound): Promise<InboundOutcome> {
    try {
      return await settle(record.id, () =>
        resolve.answer(record.id, answers, { ...asActor(from), loaded: record }),
      );
    } catch (error) {
      if (!(error instanceof InvalidAnswerError)) throw error;
      if (error.reason === "missing") {
        const missing = record.questions.filter((q) => !Object.hasOwn(answers, q.id));
        return { kind: "incomplete", record, recorded: {}, missing };
      }
      return { kind: "invalid", record, reason: answerRefused(error) };
    }
  }

  const cancel = (record: QuestionRecord, reason: "cancelled" | "skipped", from: Inbound) =>
    settle(record.id, () => resolve.cancel(record.id, reason, { ...asActor(from), loaded: record }));

  async function control(
    record: QuestionRecord,
    action: ControlAction,
    from: Inbound,
  ): Promise<InboundOutcome> {
    switch (action.type) {
      case "option": {
        const question = record.questions[action.questionIndex];
        const option = question?.options[action.optionIndex];
        if (!question || !option || question.multiSelect) {
          return { kind: "invalid", record, reason: MISMATCH };
        }
        return contribute(record, { [question.id]: [option.label] }, from, action.questionIndex);
      }
      case "choose": {
        const question = record.questions[action.questionIndex];
        if (!question) return { kind: "invalid", record, reason: MISMATCH };
        // In the options' order, each once, whatever order the platform reported them in.
        const chosen = [...new Set(action.optionIndexes)].sort((a, b) => a - b);
        const labels = chosen.flatMap((i) => question.options[i]?.label ?? []);
        // Done with nothing ticked: the step is not answered (the adapter asks for a choice).
        if (labels.length === 0) return { kind: "incomplete", record, recorded: {}, missing: [question] };
        return contribute(record, { [question.id]: labels }, from, action.questionIndex);
      }
      case "back":
        // Written, so that a line typed next answers the step on screen (see the "text" case).
        return record.questions[action.questionIndex] && action.questionIndex > 0
          ? keepDraft(record, record.draft ?? {}, action.questionIndex - 1, from)
          : { kind: "invalid", record, reason: MISMATCH };
      case "skip":
        return cancel(record, "skipped", from);
      case "browser": {
        // Made for the tapper, never the owner: a link acts only as the person it was made for.
        const url = await deps.links.urlFor(record, from.actor);
        return url === undefined
          ? { kind: "invalid", record, reason: MISMATCH }
          : { kind: "private_link", record, url };
      }
      case "other":
        return record.questions[action.questionIndex]
          ? { kind: "needs_text", record, questionIndex: action.questionIndex }
          : { kind: "invalid", record, reason: MISMATCH };
      case "toggle": {
        const question = record.questions[action.questionIndex];
        if (!question?.multiSelect || !question.options[action.optionIndex]) {
          return { kind: "invalid", record, reason: MISMATCH };
        }
        return {
          kind: "toggled",
          record,
          questionIndex: action.questionIndex,
          optionIndex: action.optionIndex,
        };
      }
    }
  }

  async function handle(
    inbound: Inbound,
    { record: routed, listed }: { record?: QuestionRecord; listed?: true },
  ): Promise<InboundOutcome> {
    // A question found in a pending listing is read whole before anything is decided: the indexes project
    // what a listing shows, not who may answer (the person it was asked for, the escalation), the draft or
    // the context. Judged on the listing, the person a question was asked for could answer it by typing in
    // their own chat, and `/question` would post it again without its context.
    const read = routed && listed ? await store.get(routed.id, now()) : routed;
    if (!read) return inbound.kind === "command" ? { kind: "no_pending" } : { kind: "ignored" };
    // With several answerers each person has their own stepper: the rest of this event sees only theirs.
    const record = asSeenBy(read, inbound.actor);
    // The owner, or from the escalation time its escalation owner — never the person it was asked for;
    // anyone else is told it is not theirs.
    const refusal = answerRefusal(record, inbound.actor, now(), actingIn(inbound));
    if (refusal === "requester") return { kind: "requester", record };
    if (refusal === "not_answerer") return { kind: "not_owner", record };
    if (record.status !== "pending") return { kind: "ended", record };
    // With a quorum each person votes once: after their vote, only commands (`/question`) reach the question.
    const voted = inbound.kind === "command" ? undefined : voteOf(record.votes, inbound.actor);
    if (voted !== undefined) {
      return { kind: "already_answered", record, ...(voted.skipped === true && { skipped: true as const }) };
    }

    switch (inbound.kind) {
      case "control":
        // A shared copy shows no one's stepper: a step there hands the tapper their own way to answer instead.
        if (stepsOnSharedCopy(record, inbound)) return control(record, { type: "browser" }, inbound);
        return control(record, inbound.action, inbound);
      case "form":
        // A step's form (multi-select choices, own text) on a shared copy would redraw it too.
        if (stepsOnSharedCopy(record, inbound)) return control(record, { type: "browser" }, inbound);
        // A form of the whole prompt shows no draft: what it leaves blank is not filled from one unseen.
        if (inbound.step === undefined) {
          const { draft: _unseen, ...shown } = record;
          return contribute(shown, inbound.answers, inbound);
        }
        return contribute(record, inbound.answers, inbound, inbound.step);
      case "command":
        if (inbound.command === "cancel") return cancel(record, "cancelled", inbound);
        return show(record, inbound);
      case "text": {
        // What the stepper kept counts, but for the step on screen: a plain line answers that step's question
        // (after Back, the one shown again), keyed lines their own; the rest of the draft is merged after.
        const reply = interpretTypedReply(record.questions, inbound.text, keptBesideStepShown(record));
        if (reply.kind === "answer") return answer(record, reply.answers, inbound);
        if (reply.kind === "skip") return cancel(record, "skipped", inbound);
        if (reply.kind === "cancel") return cancel(record, "cancelled", inbound);
        // Kept, so the next line (or the buttons) only has to give what is still missing.
        if (reply.kind === "incomplete") {
          return contribute(record, reply.answered, inbound, undefined, reply.given);
        }
        if (reply.kind === "invalid") return { kind: "invalid", record, reason: reply.reason };
        return { kind: "ignored" };
      }
    }
  }

  /**
   * The draft less the question on screen: to the reply rules that question is open again, so a plain line
   * answers it (after Back, the one shown again), and the next plain lines the questions still open.
   */
  function keptBesideStepShown(record: QuestionRecord): Answers {
    const shown = record.questions[record.step ?? 0]?.id;
    return Object.fromEntries(Object.entries(record.draft ?? {}).filter(([id]) => id !== shown));
  }

  async function show(record: QuestionRecord, inbound: Inbound): Promise<InboundOutcome> {
    const channel = deps.channels.get(inbound.platform);
    if (!channel) throw new Error(`channel "${inbound.platform}" is not configured`);
    // A question posted as often as it may be is not posted again: a copy it could not record would never
    // be retired. Nor is it posted again into a chat that already holds it a few times: one person
    // repeating `/question` would otherwise use up the room of everyone else's. Messages sent beside it (a
    // prompt for an own answer, a template) are not the question, so they do not count here.
    const here = record.deliveries.filter(
      (d) => d.channel === inbound.platform && d.chatId === inbound.chatId && d.aside !== true,
    );
    if (here.length >= MAX_REPOSTS_IN_CHAT) return { kind: "copies_full", record, here: true };
    if (copiesRoom(record) === 0) return { kind: "copies_full", record };
    // For the person who asked for it (an answerer: checked before), in the chat they asked in.
    const target = { channel: inbound.platform, chatId: inbound.chatId };
    const delivery = await channel.deliver(record, target, inbound.actor);
    await store.addDeliveries(record.id, [delivery], now());
    return { kind: "shown", record: { ...record, deliveries: [...record.deliveries, delivery] } };
  }

  return async function handleInbound(inbound: Inbound): Promise<InboundOutcome> {
    // Group chatter — text that neither replies to anything nor addresses the bot — can answer nothing (the
    // group rule in `route`): it costs no dedupe write and no lookup.
    if (inbound.kind === "text" && !inbound.addressed && inbound.replyToMessageId === undefined) {
      return { kind: "ignored" };
    }
    const dedupeKey =
      inbound.dedupeKey === undefined ? undefined : `${inbound.platform}:${inbound.dedupeKey}`;
    // The dedupe claim and the routing read run side by side: one round trip on the path a person waits on
    // instead of two. The read changes nothing, so a duplicate only wastes it; everything that writes waits
    // for the claim.
    const [claimed, routed] = await Promise.allSettled([
      dedupeKey === undefined
        ? Promise.resolve(true)
        : store.claimEvent(dedupeKey, eventClaimSeconds(inbound.platform), now()),
      route(inbound),
    ]);
    if (claimed.status === "rejected") throw claimed.reason;
    if (!claimed.value) return { kind: "duplicate" };
    try {
      if (routed.status === "rejected") throw routed.reason;
      return await handle(inbound, routed.value);
    } catch (error) {
      // Handling failed: give the claim back so the platform's retry is handled, not dropped.
      if (dedupeKey !== undefined) await store.releaseEvent(dedupeKey);
      throw error;
    }
  };
}

export type HandleInbound = ReturnType<typeof createHandleInbound>;

/** A resolution refused for a reason the person is told, as the outcome that words it; undefined: a fault. */
function refusalKind(error: unknown) {
  if (error instanceof AlreadyResolvedError) return "ended" as const;
  if (error instanceof AlreadyAnsweredError) return "already_answered" as const;
  if (error instanceof NotOwnerError) return "not_owner" as const;
  if (error instanceof OnlyOwnerCancelsError) return "only_owner_cancels" as const;
  if (error instanceof VotesBusyError) return "busy" as const;
  if (error instanceof VotesFullError) return "full" as const;
  return undefined;
}

/** The controls that move a person's stepper (Skip ends the question, "Answer in browser" hands a link). */
const STEPS: ReadonlySet<ControlAction["type"]> = new Set(["option", "choose", "other", "toggle", "back"]);

/**
 * Whether a tap is a step of a prompt of several questions that several people answer, made on a copy that is
 * not the tapper's own (a group's, a channel's): redrawn with the tapper's draft, that shared message would
 * show everyone one person's unfinished vote. A multi-select toggle counts even in a one-question prompt: its
 * ticks live in the tapped message itself (Telegram's keyboard), so everyone would see them, and another
 * member's Done would submit them as theirs. A one-question prompt still answers by tap, Skip still skips.
 */
function stepsOnSharedCopy(record: QuestionRecord, inbound: Inbound & { kind: "control" | "form" }): boolean {
  if (record.drafts === undefined) return false;
  const toggles = inbound.kind === "control" && inbound.action.type === "toggle";
  if (record.questions.length < 2 && !toggles) return false;
  if (inbound.kind === "form" ? inbound.step === undefined : !STEPS.has(inbound.action.type)) return false;
  return !record.deliveries.some(
    (d) => d.channel === inbound.platform && d.chatId === inbound.chatId && d.privateTo === inbound.actor,
  );
}

/** The chat an event came from: a member of one of the question's groups may answer only from there. */
function actingIn(inbound: Inbound): ActingIn {
  return { channel: inbound.platform, chatId: inbound.chatId };
}

/** Who answers (or skips) through an event: the person the platform shows, where they acted. */
function asActor(inbound: Inbound) {
  return { actor: inbound.actor, resolvedBy: inbound.actor, actingIn: actingIn(inbound) };
}
