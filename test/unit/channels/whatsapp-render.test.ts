/**
 * WhatsApp's drawings (lib/channels/whatsapp/whatsapp-render.ts) within its limits at the largest question the
 * contract allows, with every option label kept; its settings; and its channel's answer to a closed 24-hour
 * window where no template can go (the webhook, delivery and the template itself are in
 * test/integration/whatsapp.test.ts).
 */
import { describe, expect, it } from "vitest";
import type { BrowserEntry } from "#lib/channels/answer-in-browser.ts";
import { decodeControl } from "#lib/channels/control-codec.ts";
import { endedText } from "#lib/channels/replies.ts";
import type { WhatsappApi } from "#lib/channels/whatsapp/whatsapp-api.ts";
import { WhatsappApiError } from "#lib/channels/whatsapp/whatsapp-api.ts";
import { createWhatsappChannel } from "#lib/channels/whatsapp/whatsapp-channel.ts";
import { fitsText, renderStep, textMessage } from "#lib/channels/whatsapp/whatsapp-render.ts";
import { whatsappSpec } from "#lib/channels/whatsapp/whatsapp-spec.ts";
import type { AnswerLinks } from "#lib/web/answer-link.ts";
import {
  ALPHABETS,
  type Alphabet,
  draftedRecord,
  endedRecords,
  largestRecord,
} from "../../support/largest-questions.ts";
import { whatsappProblems } from "../../support/platform-sizes.ts";
import { questionRecord } from "../../support/records.ts";

const LINK = `https://handraise.example.com/answer/${"r".repeat(48)}?as=${encodeURIComponent("whatsapp:16505551234")}&sig=${"s".repeat(43)}`;
const BROWSERS: [string, BrowserEntry][] = [
  ["no answer page", { kind: "none" }],
  ["the control", { kind: "control" }],
  ["the link", { kind: "link", url: LINK }],
];

type Json = any;
const rowsOf = (message: Json): Json[] =>
  message.interactive.action.sections?.flatMap((section: Json) => section.rows) ?? [];

describe.each(Object.keys(ALPHABETS) as Alphabet[])("the largest question, in %s characters", (alphabet) => {
  const cases = [0, 1, 2].flatMap((step) => [
    ...BROWSERS.map(
      ([name, browser]) => [`step ${step + 1}, ${name}`, largestRecord(alphabet), step, browser] as const,
    ),
    [
      `step ${step + 1} with a draft`,
      draftedRecord(alphabet, step),
      step,
      { kind: "link", url: LINK },
    ] as const,
  ]);

  it.each(cases)(
    "%s: within the limits, every label whole in the body, each row's or the typed way",
    (_, record, step, browser) => {
      const message: Json = renderStep(record, step, browser as BrowserEntry);
      expect(whatsappProblems(message)).toEqual([]);
      const question = record.questions[step];
      for (const option of question?.options ?? []) {
        expect(message.interactive.body.text).toContain(option.label);
      }
      if (question?.multiSelect) {
        expect(message.interactive.type).toBe("button");
        expect(message.interactive.action.buttons.at(-1).reply.title).toBe("Skip");
      } else {
        const rows = rowsOf(message);
        expect(rows.at(-1).title).toBe("Skip");
        question?.options.forEach((option, i) => {
          expect(decodeControl(rows[i].id)).toMatchObject({
            kind: "option",
            optionIndex: i,
            questionIndex: step,
          });
          expect(rows[i].description.startsWith(option.label.slice(0, 40))).toBe(true);
        });
      }
      if (browser.kind === "link")
        expect(message.interactive.body.text).toContain(`Answer in browser: ${LINK}`);
    },
  );

  it.each(endedRecords(alphabet))("a late reply about a copy %s: within the limit", (_, record) => {
    expect(whatsappProblems(textMessage(endedText(record)))).toEqual([]);
    expect(fitsText(endedText(record))).toBe(true);
  });
});

describe("its settings", () => {
  const settings = (env: Record<string, string | undefined>) => {
    const problems: string[] = [];
    const value = whatsappSpec.config.settings(
      {
        WHATSAPP_API_BASE: "https://graph.facebook.com/v21.0",
        WHATSAPP_PHONE_NUMBER_ID: undefined,
        WHATSAPP_TEMPLATE: undefined,
        ...env,
      },
      (variable, given) => {
        if (given === undefined) problems.push(variable);
        return given ?? "";
      },
    );
    return { value, problems };
  };

  it("needs the phone number id; the template is optional, name:language", () => {
    expect(settings({}).problems).toEqual(["WHATSAPP_PHONE_NUMBER_ID"]);
    expect(
      settings({ WHATSAPP_PHONE_NUMBER_ID: "106540352242922", WHATSAPP_TEMPLATE: "question_waiting:en_US" }),
    ).toEqual({
      value: {
        apiBase: "https://graph.facebook.com/v21.0",
        phoneNumberId: "106540352242922",
        template: { name: "question_waiting", language: "en_US" },
      },
      problems: [],
    });
  });

  it.each(["question_waiting", "Question:en", "question_waiting:english", ":en"])(
    "refuses the template %s",
    (value) => {
      expect(whatsappSpec.config.variables.WHATSAPP_TEMPLATE.safeParse(value).success).toBe(false);
    },
  );
});

describe("a closed 24-hour window", () => {
  const closed: WhatsappApi = {
    phoneNumber: async () => ({}),
    send: async (_to, message) => {
      if (message.type === "interactive")
        throw new WhatsappApiError("POST /messages", 400, "Re-engagement message", 131047);
      return "wamid.TEMPLATE";
    },
  };
  const links: AnswerLinks = { isOn: async () => true, urlFor: async () => LINK };
  const target = { channel: "whatsapp", chatId: "16505551234" };
  const record = questionRecord({ owner: "whatsapp:16505551234" });

  it("without a template, the target fails naming WHATSAPP_TEMPLATE", async () => {
    await expect(
      createWhatsappChannel(closed, { links }).deliver(record, target, record.owner),
    ).rejects.toThrow(/131047.*WHATSAPP_TEMPLATE is not set/);
  });

  it("with a template but no link for this chat's reader, the target fails rather than send one without it", async () => {
    const channel = createWhatsappChannel(closed, { links, template: { name: "t", language: "en" } });
    await expect(
      channel.deliver(record, { ...target, chatId: "447700900123" }, record.owner),
    ).rejects.toThrow(/own link/);
    await expect(
      createWhatsappChannel(closed, { template: { name: "t", language: "en" } }).deliver(
        record,
        target,
        record.owner,
      ),
    ).rejects.toThrow(/own link/);
  });

  it("any other refusal fails the target as it is, without a template", async () => {
    const sent: Json[] = [];
    const refusing: WhatsappApi = {
      phoneNumber: async () => ({}),
      send: async (_to, message) => {
        sent.push(message);
        throw new WhatsappApiError("POST /messages", 400, "Invalid parameter", 100);
      },
    };
    const channel = createWhatsappChannel(refusing, { links, template: { name: "t", language: "en" } });
    await expect(channel.deliver(record, target, record.owner)).rejects.toThrow(/Invalid parameter/);
    expect(sent.map((m) => m.type)).toEqual(["interactive"]);
  });
});
