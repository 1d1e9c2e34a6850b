/**
 * Every message fits its platform: the largest question the contract allows (test/support/largest-questions.ts),
 * rendered every way each platform shows it — the first post and each step of the stepper (with and without
 * the answer page's link or control, with a draft), the ended copy of each outcome, the forms and dialogs,
 * the notices — is within the platform's limits as the platform checks them (test/support/platform-sizes.ts),
 * still offers every option label while pending, and once ended still shows its outcome line with each
 * question's header and answer (Google Chat's cards too). Discord's components also pass @discordjs/builders' validators, Teams'
 * cards the Adaptive Cards parser.
 */
import { createRequire } from "node:module";
import {
  ActionRowBuilder,
  ButtonBuilder,
  LabelBuilder,
  ModalBuilder,
  StringSelectMenuBuilder,
  StringSelectMenuOptionBuilder,
  TextInputBuilder,
} from "@discordjs/builders";
import type * as AdaptiveCardsModule from "adaptivecards";
import { describe, expect, it } from "vitest";
import type { InboundOutcome } from "#lib/app/handle-inbound.ts";
import type { BrowserEntry } from "#lib/channels/answer-in-browser.ts";
import {
  fitsContent,
  otherModal,
  promptMessage,
  retiredContent,
} from "#lib/channels/discord/discord-render.ts";
import { fitToLimit } from "#lib/channels/fit.ts";
import {
  fitsText as fitsGchatText,
  textMessage as gchatText,
  renderQuestionMessage as renderGchatQuestion,
  renderRetiredMessage as renderGchatRetired,
} from "#lib/channels/gchat/gchat-render.ts";
import {
  escapeMarkdown as escapeMattermost,
  fitsPost,
  renderDialog,
  renderPost,
  retiredPost,
} from "#lib/channels/mattermost/mattermost-render.ts";
import { fittedOutcomeText, outcomeReplyText, outcomeText, reminderText } from "#lib/channels/replies.ts";
import {
  escapeMrkdwn,
  fitsSection,
  renderBlocks,
  renderModal,
  renderRetiredBlocks,
  renderRetiredText,
  renderText,
} from "#lib/channels/slack/slack-render.ts";
import {
  cardActivity,
  fitsActivity,
  renderQuestionCard,
  renderRetiredCard,
  textActivity,
} from "#lib/channels/teams/teams-render.ts";
import {
  fitsMessage,
  renderPrompt,
  renderRetiredText as telegramRetiredText,
} from "#lib/channels/telegram/telegram-render.ts";
import { renderPromptText } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import { MAX_ANSWER_VALUE_UNITS } from "#lib/questions/schema.ts";
import {
  ALPHABETS,
  type Alphabet,
  draftedRecord,
  endedRecords,
  largestAnswers,
  largestRecord,
  textOf,
} from "../../support/largest-questions.ts";
import {
  discordMessageProblems,
  discordModalProblems,
  gchatProblems,
  mattermostDialogProblems,
  mattermostMessageProblems,
  slackProblems,
  teamsProblems,
  telegramProblems,
} from "../../support/platform-sizes.ts";

// The package's ES build imports its own files without extensions, which Node does not resolve; its UMD build
// is the same library.
const AdaptiveCards = createRequire(import.meta.url)(
  "adaptivecards/dist/adaptivecards.js",
) as typeof AdaptiveCardsModule;

const ALPHABET_NAMES = Object.keys(ALPHABETS) as Alphabet[];
const STEPS = [0, 1, 2];
/** A link of the deployed answer page, as long as Handraise makes one (an escalation owner's `as=`). */
const LINK = `https://handraise.example.com/answer/${"r".repeat(48)}?as=${encodeURIComponent(`slack:T${"1".repeat(10)}:U${"2".repeat(10)}`)}&sig=${"s".repeat(43)}`;
const BROWSERS: [string, BrowserEntry][] = [
  ["no answer page", { kind: "none" }],
  ["the control", { kind: "control" }],
  ["the link", { kind: "link", url: LINK }],
];

/** Each pending drawing: step × what it offers of the answer page, and each step with a full draft. */
function pendingCases(alphabet: Alphabet): [string, QuestionRecord, number, BrowserEntry][] {
  return [
    ...STEPS.flatMap((step) =>
      BROWSERS.map(([name, browser]): [string, QuestionRecord, number, BrowserEntry] => [
        `step ${step + 1}, ${name}`,
        largestRecord(alphabet),
        step,
        browser,
      ]),
    ),
    ...STEPS.map((step): [string, QuestionRecord, number, BrowserEntry] => [
      `step ${step + 1} with a draft of the longest answers`,
      draftedRecord(alphabet, step),
      step,
      { kind: "link", url: LINK },
    ]),
  ];
}

/**
 * The notices that repeat what a person wrote: the answers a typed reply recorded while others are still
 * needed, the full outcome, and a number naming no option as long as a message.
 */
function noticeOutcomes(alphabet: Alphabet): [string, InboundOutcome][] {
  const record = largestRecord(alphabet);
  const answers = largestAnswers(record.questions, alphabet);
  const [first, second, third] = record.questions;
  const answered = endedRecords(alphabet)[0]?.[1] as QuestionRecord;
  return [
    [
      "recorded two, one still needed",
      {
        kind: "incomplete",
        record,
        recorded: {
          [first?.id ?? ""]: answers[first?.id ?? ""] ?? [],
          [third?.id ?? ""]: answers[third?.id ?? ""] ?? [],
        },
        missing: [second as never],
      },
    ],
    ["ended", { kind: "ended", record: { ...answered, status: "cancelled", reason: "skipped" } }],
    [
      "a number naming no option",
      {
        kind: "invalid",
        record,
        reason: { kind: "no_such_option", question: first as never, typed: "9".repeat(4000), several: true },
      },
    ],
  ];
}

/** Every option label of step `step`, whole. */
const labelsOf = (record: QuestionRecord, step: number) =>
  (record.questions[step]?.options ?? []).map((option) => option.label);

/**
 * The outcome as the ended copy must show it (`visible`: its text as a person reads it): how it ended, and
 * for an answer each question's header and the start of its answer, in order, after the word "Answered".
 */
function expectOutcomeShown(visible: string, record: QuestionRecord) {
  if (record.status !== "answered") {
    expect(visible).toContain(outcomeText(record));
    return;
  }
  const at = visible.lastIndexOf("Answered");
  expect(at).toBeGreaterThanOrEqual(0);
  let rest = visible.slice(at);
  for (const question of record.questions) {
    const start = `${question.header}: ${[...(record.answers?.[question.id]?.[0] ?? "")].slice(0, 3).join("")}`;
    const index = rest.indexOf(start);
    expect(index, `the outcome shows "${start}"`).toBeGreaterThanOrEqual(0);
    rest = rest.slice(index + start.length);
  }
}

/** The context is never dropped whole: its first word stays. */
const expectContextShown = (visible: string) => expect(visible).toContain("Context ");

describe.each(ALPHABET_NAMES)("the largest question, in %s characters", (alphabet) => {
  describe("Telegram", () => {
    it.each(pendingCases(alphabet))(
      "prompt, %s: within the limits, every label in text and buttons",
      (_, record, step, browser) => {
        const prompt = renderPrompt(record, step, browser);
        expect(telegramProblems("sendMessage", prompt)).toEqual([]);
        const buttons = prompt.reply_markup.inline_keyboard.flat().map((button) => button.text);
        for (const label of labelsOf(record, step)) {
          expect(prompt.text).toContain(label);
          expect(buttons.some((text) => text.endsWith(label))).toBe(true);
        }
        expectContextShown(prompt.text);
      },
    );

    it("a prompt on this machine carries its link in the text, within the limit", () => {
      const prompt = renderPrompt(largestRecord(alphabet), 0, {
        kind: "link",
        url: `http://127.0.0.1:3000/answer/${"r".repeat(48)}?sig=${"s".repeat(43)}`,
      });
      expect(telegramProblems("sendMessage", prompt)).toEqual([]);
      expect(prompt.text).toMatch(/Answer in browser: http:\/\/127\.0\.0\.1:3000\/answer\/r+\?sig=s{43}$/);
    });

    it.each(endedRecords(alphabet))("ended copy, %s: within the limit, shows its outcome", (_, record) => {
      const text = telegramRetiredText(record);
      expect(telegramProblems("editMessageText", { text, reply_markup: { inline_keyboard: [] } })).toEqual(
        [],
      );
      expectOutcomeShown(text, record);
      expectContextShown(text);
    });

    it.each(noticeOutcomes(alphabet))("notice, %s: within the limit", (_, outcome) => {
      const text = outcomeReplyText(outcome, fitsMessage);
      expect(telegramProblems("sendMessage", { text })).toEqual([]);
    });
  });

  describe("Slack", () => {
    const visible = (text: string) => text.replace(/&lt;/g, "<").replace(/&gt;/g, ">").replace(/&amp;/g, "&");
    const sectionTexts = (blocks: Record<string, any>[]) =>
      blocks
        .filter((b) => b.type === "section")
        .map((b) => visible(b.text.text))
        .join("\n");
    const controlTexts = (blocks: Record<string, any>[]) =>
      blocks
        .filter((b) => b.type === "actions")
        .flatMap((b) => b.elements)
        .flatMap((e: any) =>
          e.type === "checkboxes" ? e.options.map((o: any) => o.text.text) : [e.text.text],
        );

    it.each(pendingCases(alphabet))(
      "prompt, %s: within the limits, every label offered",
      (_, record, step, browser) => {
        const message = { text: renderText(record), blocks: renderBlocks(record, browser, step) };
        expect(slackProblems("chat.postMessage", message)).toEqual([]);
        const controls = controlTexts(message.blocks);
        for (const label of labelsOf(record, step))
          expect(controls.some((text) => text.endsWith(label))).toBe(true);
        expectContextShown(sectionTexts(message.blocks));
      },
    );

    it.each(endedRecords(alphabet))("ended copy, %s: within the limits, shows its outcome", (_, record) => {
      const message = { text: renderRetiredText(record), blocks: renderRetiredBlocks(record) };
      expect(slackProblems("chat.update", message)).toEqual([]);
      expectOutcomeShown(sectionTexts(message.blocks), record);
      expectContextShown(sectionTexts(message.blocks));
    });

    it.each([
      ["Answer in a form", undefined],
      ...STEPS.map((step): [string, number | undefined] => [`Other… on step ${step + 1}`, step]),
    ] as [string, number | undefined][])("modal, %s: within the limits", (_, questionIndex) => {
      const record = largestRecord(alphabet);
      const view = renderModal(record, { c: "C0123456789", s: 2, m: "1700000000.000100" }, questionIndex);
      expect(slackProblems("views.open", { trigger_id: "t", view })).toEqual([]);
    });

    it.each(noticeOutcomes(alphabet))("notice, %s: within a section", (_, outcome) => {
      const text = escapeMrkdwn(outcomeReplyText(outcome, fitsSection) ?? "");
      expect(
        slackProblems("chat.postEphemeral", {
          text,
          blocks: [{ type: "section", text: { type: "mrkdwn", text } }],
        }),
      ).toEqual([]);
    });
  });

  describe("Discord", () => {
    const visible = (text: string) => text.replace(/\\([\\*_~`|>[\]#-])/g, "$1");

    it.each(pendingCases(alphabet))(
      "prompt, %s: within the limits and Discord's validators",
      (_, record, step, browser) => {
        const message = promptMessage(record, step, browser);
        expect(discordMessageProblems(message)).toEqual([]);
        buildComponents(message.components);
        const labels = message.components.flatMap((row: any) =>
          row.components.flatMap((c: any) => (c.type === 3 ? c.options.map((o: any) => o.label) : [c.label])),
        );
        for (const label of labelsOf(record, step)) {
          expect(labels).toContain(label);
          expect(visible(message.content)).toContain(label);
        }
        expectContextShown(visible(message.content));
      },
    );

    it.each(endedRecords(alphabet))("ended copy, %s: within the limit, shows its outcome", (_, record) => {
      const content = retiredContent(record);
      expect(discordMessageProblems({ content, components: [] })).toEqual([]);
      expectOutcomeShown(visible(content), record);
      expectContextShown(visible(content));
    });

    it.each(STEPS)("Other… modal of step %i: within the limits and Discord's validators", (step) => {
      const modal = otherModal(largestRecord(alphabet), step);
      expect(discordModalProblems(modal)).toEqual([]);
      buildModal(modal);
    });

    it.each(noticeOutcomes(alphabet))("notice, %s: within a message", (_, outcome) => {
      expect(
        discordMessageProblems({ content: escapeDiscord(outcomeReplyText(outcome, fitsContent)) }),
      ).toEqual([]);
    });

    it.each(endedRecords(alphabet))("the outcome told privately, %s: within a message", (_, record) => {
      expect(
        discordMessageProblems({ content: escapeDiscord(fittedOutcomeText(record, fitsContent)) }),
      ).toEqual([]);
    });
  });

  describe("Mattermost", () => {
    const target = {
      url: "https://handraise.example.com/webhooks/mattermost",
      secret: "mm-action-secret-0123456789",
    };
    const visible = (text: string) =>
      text.replace(/\\([\\`*_{}[\]()#+\-.!|~<>=&$])/g, "$1").replace(/\u200b/g, "");

    it.each(pendingCases(alphabet))(
      "post, %s: within the limit, every label a button",
      (_, record, step, browser) => {
        const post = renderPost(record, target, browser, step);
        expect(mattermostMessageProblems(post.message)).toEqual([]);
        const names = (post.props.attachments[0]?.actions ?? []).map((action) => action.name);
        const question = record.questions[step];
        // A multi-select question's options are in its Choose… dialog; its text still lists them.
        if (!question?.multiSelect)
          for (const label of labelsOf(record, step)) expect(names).toContain(label);
        for (const label of labelsOf(record, step)) expect(visible(post.message)).toContain(label);
        expectContextShown(visible(post.message));
      },
    );

    it.each(endedRecords(alphabet))("ended copy, %s: within the limit, shows its outcome", (_, record) => {
      const post = retiredPost(record);
      expect(mattermostMessageProblems(post.message)).toEqual([]);
      expectOutcomeShown(visible(post.message), record);
      expectContextShown(visible(post.message));
    });

    it.each([
      ["Choose… (multi-select)", "choose", 1],
      ...STEPS.map((step) => [`Other… of step ${step + 1}`, "other", step] as const),
    ] as const)("dialog, %s: within the limits, own answers in a textarea", (_, kind, questionIndex) => {
      const dialog = renderDialog(
        largestRecord(alphabet),
        {
          control: { kind, questionId: "r".repeat(48), questionIndex, optionIndex: 0 },
          postId: "p".repeat(26),
          userId: "u".repeat(26),
          channelId: "c".repeat(26),
          issuedAtMs: 1_700_000_000_000,
        },
        target,
      );
      expect(mattermostDialogProblems(dialog)).toEqual([]);
      expect(dialog.elements.filter((e) => e.type !== "select").map((e) => e.type)).toEqual(["textarea"]);
    });

    it.each(noticeOutcomes(alphabet))("notice, %s: within a post", (_, outcome) => {
      expect(mattermostMessageProblems(escapeMattermost(outcomeReplyText(outcome, fitsPost) ?? ""))).toEqual(
        [],
      );
    });
  });

  describe("Teams", () => {
    const visible = (card: Record<string, any>) =>
      (card.body as Record<string, any>[])
        .filter((element) => element.type === "TextBlock")
        .map((block) => String(block.text).replace(/\\([\\`*_[\]~.+#>-])/g, "$1"))
        .join("\n");

    it.each(pendingCases(alphabet))(
      "card, %s: within an activity, parses, every label offered",
      (_, record, step, browser) => {
        const card = renderQuestionCard(record, { step, browser });
        expect(teamsProblems(cardActivity(card))).toEqual([]);
        expectParses(card);
        const offered = JSON.stringify(card);
        for (const label of labelsOf(record, step))
          expect(offered).toContain(JSON.stringify(label).slice(1, -1));
        expectContextShown(visible(card));
      },
    );

    it.each(endedRecords(alphabet))(
      "ended card, %s: within an activity, parses, shows its outcome",
      (_, record) => {
        const card = renderRetiredCard(record);
        expect(teamsProblems(cardActivity(card))).toEqual([]);
        expectParses(card);
        expectOutcomeShown(visible(card), record);
        expectContextShown(visible(card));
      },
    );

    it.each(noticeOutcomes(alphabet))("notice, %s: within an activity", (_, outcome) => {
      expect(teamsProblems(textActivity(outcomeReplyText(outcome, fitsActivity) ?? ""))).toEqual([]);
    });
  });

  describe("Google Chat", () => {
    /** The card's text as a person reads it: tags dropped, entities and line breaks as they show. */
    const visible = (message: Record<string, any>) =>
      (message.cardsV2[0].card.sections as Record<string, any>[])
        .flatMap((section) => section.widgets as Record<string, any>[])
        .flatMap((widget) => (widget.textParagraph ? [String(widget.textParagraph.text)] : []))
        .map((text) =>
          text
            .replace(/<br>/g, "\n")
            .replace(/<\/?b>/g, "")
            .replace(/&lt;/g, "<")
            .replace(/&gt;/g, ">")
            .replace(/&amp;/g, "&"),
        )
        .join("\n");

    it.each(pendingCases(alphabet))(
      "card, %s: within a message, every label a button",
      (_, record, step, browser) => {
        const message = renderGchatQuestion(record, { step, browser });
        expect(gchatProblems(message)).toEqual([]);
        const texts = JSON.stringify(message);
        for (const label of labelsOf(record, step))
          expect(texts).toContain(JSON.stringify(label).slice(1, -1));
        expectContextShown(visible(message));
      },
    );

    it.each(endedRecords(alphabet))("ended card, %s: within a message, shows its outcome", (_, record) => {
      const message = renderGchatRetired(record);
      expect(gchatProblems(message)).toEqual([]);
      expect(JSON.stringify(message)).not.toMatch(/onClick|textInput|selectionInput/);
      expectOutcomeShown(visible(message), record);
      expectContextShown(visible(message));
    });

    it.each(noticeOutcomes(alphabet))("notice, %s: within a message", (_, outcome) => {
      expect(gchatProblems(gchatText(outcomeReplyText(outcome, fitsGchatText) ?? ""))).toEqual([]);
    });
  });
});

it("a reminder, however long the wait, is within every platform's limits", () => {
  const record = largestRecord("mixed", { expiresAtMs: 31_536_000_000 });
  const text = reminderText({ leftMs: record.expiresAtMs });
  expect(telegramProblems("sendMessage", { text })).toEqual([]);
  expect(slackProblems("chat.postMessage", { text: escapeMrkdwn(text) })).toEqual([]);
  expect(discordMessageProblems({ content: escapeDiscord(text) })).toEqual([]);
  expect(mattermostMessageProblems(escapeMattermost(text))).toEqual([]);
  expect(teamsProblems({ type: "message", text })).toEqual([]);
  expect(gchatProblems(gchatText(text))).toEqual([]);
});

describe("what gives way", () => {
  it("descriptions first: a prompt a little too long loses description characters only", () => {
    const record = largestRecord("mixed");
    const render = (shown: QuestionRecord) => renderPromptText(shown.questions, shown.context);
    const full = render(record);
    const fitted = fitToLimit(record, render, (text) => text.length <= full.length - 10);
    expect(fitted.length).toBeLessThanOrEqual(full.length - 10);
    expect(fitted).toContain(record.context);
    for (const question of record.questions) {
      expect(fitted).toContain(question.question);
      for (const option of question.options) expect(fitted).toContain(option.label);
    }
    const descriptions = record.questions.flatMap((q) => q.options.map((o) => o.description ?? ""));
    expect(descriptions.filter((d) => !fitted.includes(d)).length).toBeGreaterThan(0);
  });

  it("then question texts and the context, never the labels", () => {
    const record = largestRecord("mixed");
    const render = (shown: QuestionRecord) => renderPromptText(shown.questions, shown.context);
    const fitted = fitToLimit(record, render, (text) => text.length <= 2000);
    expect(fitted.length).toBeLessThanOrEqual(2000);
    expect(fitted).not.toContain(record.questions[0]?.question);
    expect(fitted).not.toContain(record.context);
    for (const question of record.questions) {
      for (const option of question.options) expect(fitted).toContain(option.label);
    }
  });

  it("holds every text of a kind to one length, so the longest give way first and short ones stay whole", () => {
    const record = {
      questions: largestRecord("mixed").questions.map((q, i) => ({
        ...q,
        question: i === 0 ? "Short?" : q.question,
      })),
    };
    const render = (value: typeof record) => value.questions.map((q) => q.question).join("|");
    const fitted = fitToLimit(record, render, (text) => text.length <= 500);
    const [first, ...rest] = fitted.split("|");
    expect(first).toBe("Short?");
    for (const text of rest) expect(text.endsWith("…")).toBe(true);
    expect(fitted.length).toBeLessThanOrEqual(500);
  });

  it("an ended copy drops its option lists before it cuts an answer", () => {
    const [, answered] = endedRecords("markup")[0] as [string, QuestionRecord];
    const [a, b, c] = answered.questions.map((q) => q.id);
    const content = retiredContent({
      ...answered,
      answers: { [`${a}`]: ["A"], [`${b}`]: ["B"], [`${c}`]: ["C"] },
    });
    expect(content).toMatch(/Answered — .*: A; .*: B; .*: C$/);
  });

  it("an answer is cut only when it alone is too long, with an ellipsis", () => {
    const [, answered] = endedRecords("astral")[0] as [string, QuestionRecord];
    const text = telegramRetiredText(answered);
    expect(text.length).toBeLessThanOrEqual(4096);
    expect(text).toContain("…");
    expect(MAX_ANSWER_VALUE_UNITS * 3).toBeGreaterThan(4096);
  });
});

const escapeDiscord = (text: string | undefined) => (text ?? "").replace(/[\\*_~`|>[\]]/g, "\\$&");

/** Builds Discord's components with @discordjs/builders, whose setters validate each value (and throw). */
function buildComponents(rows: Record<string, any>[]) {
  for (const row of rows) {
    const built = row.components.map((c: Record<string, any>) => {
      if (c.type === 2) {
        const button = new ButtonBuilder().setStyle(c.style).setLabel(c.label);
        return c.url !== undefined ? button.setURL(c.url) : button.setCustomId(c.custom_id);
      }
      const select = new StringSelectMenuBuilder()
        .setCustomId(c.custom_id)
        .setPlaceholder(c.placeholder)
        .setMinValues(c.min_values)
        .setMaxValues(c.max_values)
        .addOptions(
          c.options.map((o: Record<string, any>) => {
            const option = new StringSelectMenuOptionBuilder().setLabel(o.label).setValue(o.value);
            if (o.description !== undefined) option.setDescription(o.description);
            return o.default ? option.setDefault(true) : option;
          }),
        );
      return select;
    });
    expect(() => new ActionRowBuilder().addComponents(...built).toJSON()).not.toThrow();
  }
}

/** Builds the Other… modal with @discordjs/builders (validating every value). */
function buildModal(modal: Record<string, any>) {
  const [label] = modal.components as Record<string, any>[];
  const input = new TextInputBuilder()
    .setCustomId(label?.component.custom_id)
    .setStyle(label?.component.style)
    .setRequired(label?.component.required)
    .setMaxLength(label?.component.max_length);
  const built = new ModalBuilder()
    .setCustomId(modal.custom_id)
    .setTitle(modal.title)
    .addLabelComponents(
      new LabelBuilder()
        .setLabel(label?.label)
        .setDescription(label?.description)
        .setTextInputComponent(input),
    );
  expect(() => built.toJSON()).not.toThrow();
}

/** The card parses as the Adaptive Cards library reads it: no unknown element, property or version. */
function expectParses(card: Record<string, unknown>) {
  const parsed = new AdaptiveCards.AdaptiveCard();
  const context = new AdaptiveCards.SerializationContext();
  parsed.parse(card, context);
  const events = Array.from({ length: context.eventCount }, (_, i) => context.getEventAt(i)?.message);
  expect(events).toEqual([]);
  expect(parsed.validateProperties().validationEvents.map((event) => event.message)).toEqual([]);
}

// A context of the longest, in each alphabet, is what the contract takes.
it.each(ALPHABET_NAMES)("the %s fixtures are within the contract", (alphabet) => {
  expect(textOf(alphabet, 500).length).toBe(500);
  expect(largestRecord(alphabet).questions).toHaveLength(3);
});
