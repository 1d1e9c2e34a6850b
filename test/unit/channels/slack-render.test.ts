import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { decodeControl } from "#lib/channels/control-codec.ts";
import {
  commandOf,
  messageToInbound,
  readForm,
  slackTextToPlain,
  tickedOptions,
} from "#lib/channels/slack/slack-inbound.ts";
import { fillSlackManifest } from "#lib/channels/slack/slack-manifest.ts";
import {
  escapeMrkdwn,
  fitMrkdwn,
  readModalOrigin,
  renderBlocks,
  renderModal,
  renderRetiredBlocks,
  renderText,
} from "#lib/channels/slack/slack-render.ts";
import { normalizeAskUserArgs } from "#lib/questions/index.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";

function recordOf(questions: unknown[], extra: Partial<QuestionRecord> = {}): QuestionRecord {
  return {
    id: "ask_0123456789abcdef0123456789abcdef",
    status: "pending",
    questions: normalizeAskUserArgs({ questions }).questions,
    owner: "slack:T1:U1",
    deliveries: [],
    createdAtMs: 0,
    expiresAtMs: 1,
    ...extra,
  };
}
const single = {
  id: "deploy_target",
  header: "Deploy",
  question: "Where?",
  options: [{ label: "Staging" }, { label: "Production", description: "<!here> & live" }],
};
const multi = { ...single, id: "checks", multiSelect: true };
const types = (blocks: Record<string, unknown>[]) => blocks.map((b) => b.type);

describe("Slack rendering", () => {
  it("escapes &, < and > in everything the model or a user wrote", () => {
    expect(escapeMrkdwn("a <@U1> & <!channel> > b")).toBe("a &lt;@U1&gt; &amp; &lt;!channel&gt; &gt; b");
    const blocks = JSON.stringify(renderBlocks(recordOf([single])));
    expect(blocks).toContain("2. Production - &lt;!here&gt; &amp; live");
    expect(renderText(recordOf([single]))).not.toContain("<!here>");
  });

  it("cuts long text to Block Kit's limits without splitting an entity or a surrogate pair", () => {
    expect(fitMrkdwn("&&&&", 12)).toBe("&amp;&amp;…");
    expect(fitMrkdwn("ab😀", 3)).toBe("ab…");
    // Longer than normalizeAskUserArgs lets a question be: the renderer fits whatever a record holds.
    const questions = recordOf([single]).questions.map((q) => ({ ...q, question: "x".repeat(5000) }));
    const long = recordOf([single], { questions });
    for (const block of renderBlocks(long)) {
      const text = (block.text as { text?: string } | undefined)?.text ?? "";
      expect(text.length).toBeLessThanOrEqual(3000);
    }
    expect(renderText(long).length).toBeLessThanOrEqual(3000);
  });

  it("one single-select question: buttons; one multi-select: checkboxes + Done; several: step 1 of the stepper", () => {
    const id = "ask_0123456789abcdef0123456789abcdef";
    const controls = (record: QuestionRecord, step?: number) => {
      const actions = renderBlocks(record, undefined, step).find((b) => b.type === "actions");
      const elements = (actions?.elements ?? []) as { type: string; action_id: string; value?: string }[];
      for (const e of elements) if (e.value !== undefined) expect(e.value).toBe(e.action_id);
      return elements.map((e) => `${e.type}:${e.action_id}`);
    };
    expect(controls(recordOf([single]))).toEqual([
      `button:o|0|0|${id}`,
      `button:o|0|1|${id}`,
      `button:x|0|0|${id}`,
      `button:s|0|0|${id}`,
    ]);
    expect(controls(recordOf([multi]))).toEqual([
      `checkboxes:c|0|0|${id}`,
      `button:d|0|0|${id}`,
      `button:x|0|0|${id}`,
      `button:s|0|0|${id}`,
    ]);
    // Several: the first question's own controls, no Back on step 1, then the whole form and Skip.
    expect(controls(recordOf([single, multi]))).toEqual([
      `button:o|0|0|${id}`,
      `button:o|0|1|${id}`,
      `button:x|0|0|${id}`,
      `button:f|0|0|${id}`,
      `button:s|0|0|${id}`,
    ]);
    expect(controls(recordOf([single, multi]), 1)).toEqual([
      `checkboxes:c|1|0|${id}`,
      `button:d|1|0|${id}`,
      `button:x|1|0|${id}`,
      `button:b|1|0|${id}`,
      // The whole prompt's controls name the step they were drawn on, as on every platform.
      `button:f|1|0|${id}`,
      `button:s|1|0|${id}`,
    ]);
    for (const control of controls(recordOf([single, multi]), 1)) {
      expect(decodeControl(control.split(":")[1] as string)?.questionId).toBe(id);
    }
    expect(renderText(recordOf([single]))).toContain("/handraise cancel to cancel.");
  });

  it("a step shows its header and question, its progress, and the draft's choice marked", () => {
    const record = recordOf([single, multi], {
      draft: { deploy_target: ["Production"], checks: ["Staging", "Production"] },
    });
    const first = renderBlocks(record, undefined, 0);
    expect(types(first)).toEqual(["section", "context", "actions"]);
    expect(first[0]).toEqual({ type: "section", text: { type: "mrkdwn", text: "*Deploy*\nWhere?" } });
    expect(first[1]).toEqual({ type: "context", elements: [{ type: "plain_text", text: "1 of 2" }] });
    const buttons = (first[2]?.elements ?? []) as { text: { text: string }; style?: string }[];
    expect(buttons.slice(0, 2).map((b) => [b.text.text, b.style])).toEqual([
      ["Staging", undefined],
      ["✓ Production", "primary"],
    ]);
    const second = renderBlocks(record, undefined, 1);
    const [checkboxes] = (second[2]?.elements ?? []) as { initial_options?: { value: string }[] }[];
    expect(checkboxes?.initial_options?.map((o) => o.value)).toEqual(["0", "1"]);
    // Another set of ticks is another block_id: Slack would otherwise keep the old ticks on screen.
    const fresh = renderBlocks(recordOf([single, multi]), undefined, 1);
    expect(fresh[2]?.block_id).not.toBe(second[2]?.block_id);
  });

  it("an Other… modal opened on a step remembers the step and the message; the whole form remembers neither", () => {
    const record = recordOf([single, multi]);
    const other = renderModal(record, { c: "C1", s: 1, m: "1700.1" }, 1);
    expect(readModalOrigin(other.private_metadata as string)).toEqual({
      q: record.id,
      c: "C1",
      s: 1,
      m: "1700.1",
    });
    const form = renderModal(record, { c: "C1" });
    expect(readModalOrigin(form.private_metadata as string)).toEqual({ q: record.id, c: "C1" });
    expect(readModalOrigin("not json")).toBeUndefined();
    expect(readModalOrigin(JSON.stringify({ q: 1, c: "C1" }))).toBeUndefined();
  });

  it("a retired question keeps its text, shows the outcome and has no controls", () => {
    const answered = recordOf([single], { status: "answered", answers: { deploy_target: ["<b> & c"] } });
    const blocks = renderRetiredBlocks(answered);
    expect(types(blocks)).toEqual(["section"]);
    expect(JSON.stringify(blocks)).toContain("Answered — Deploy: &lt;b&gt; &amp; c");
  });
});

describe("Slack inbound parsing", () => {
  it("turns Slack's markup back into what was typed, dropping a leading mention of the bot", () => {
    expect(slackTextToPlain("<@UBOT> 2", "UBOT")).toBe("2");
    expect(slackTextToPlain("see <https://example.com|example.com> &amp; &lt;3")).toBe(
      "see example.com & <3",
    );
    expect(slackTextToPlain("<https://x.example/a>")).toBe("https://x.example/a");
    expect(slackTextToPlain("ask <@U2> first")).toBe("ask <@U2> first");
  });

  it("a message event: thread_ts routes, the bot and edits are ignored, owner is slack:<team>:<user>", () => {
    const envelope = {
      type: "event_callback" as const,
      team_id: "T1",
      event_id: "Ev1",
      authorizations: [{ user_id: "UBOT", is_bot: true }],
      event: { type: "message", channel: "C1", user: "U1", text: "2", ts: "2.0", thread_ts: "1.0" },
    };
    expect(messageToInbound(envelope)).toEqual({
      platform: "slack",
      actor: "slack:T1:U1",
      chatId: "C1",
      dedupeKey: "ev:Ev1",
      kind: "text",
      text: "2",
      replyToMessageId: "1.0",
      addressed: false,
    });
    // Addressed to the app: in a direct conversation, or mentioning its bot user (either markup).
    const event = envelope.event;
    for (const addressed of [
      { ...event, channel_type: "im" },
      { ...event, text: "<@UBOT> 2" },
      { ...event, text: "2, <@UBOT|handraise>" },
    ]) {
      expect(messageToInbound({ ...envelope, event: addressed })?.addressed).toBe(true);
    }
    for (const chatter of [
      { ...event, channel_type: "channel" },
      { ...event, channel_type: "mpim" },
      { ...event, text: "<@UBOTX> 2" },
    ]) {
      expect(messageToInbound({ ...envelope, event: chatter })?.addressed).toBe(false);
    }
    expect(messageToInbound({ ...envelope, event: { ...envelope.event, bot_id: "B1" } })).toBeUndefined();
    expect(messageToInbound({ ...envelope, event: { ...envelope.event, user: "UBOT" } })).toBeUndefined();
    expect(
      messageToInbound({ ...envelope, event: { ...envelope.event, subtype: "message_changed" } }),
    ).toBeUndefined();
  });

  it("reads ticked checkboxes and modal forms; a single-select with a choice and a text is an error", () => {
    const state = {
      values: { b: { "c|0|0|ask_1": { type: "checkboxes", selected_options: [{ value: "2" }] } } },
    };
    expect(tickedOptions(state, "c|0|0|ask_1")).toEqual([2]);
    expect(tickedOptions(state, "c|1|0|ask_1")).toEqual([]);
    const form = {
      values: {
        "c|a": { choice: { type: "static_select", selected_option: { value: "Staging" } } },
        "t|a": { text: { type: "plain_text_input", value: "  " } },
        "c|b": { choice: { type: "checkboxes", selected_options: [{ value: "Unit" }] } },
        "t|b": { text: { type: "plain_text_input", value: "custom" } },
      },
    };
    expect(readForm(form)).toEqual({ answers: { a: ["Staging"], b: ["Unit", "custom"] }, errors: {} });
    const both = { values: { ...form.values, "t|a": { text: { type: "plain_text_input", value: "mine" } } } };
    expect(readForm(both).errors).toEqual({ "t|a": "Pick an option or type your own answer, not both." });
  });

  it("knows /handraise cancel|question (and /cancel, /question)", () => {
    const command = (name: string, text = "") => ({
      command: name,
      text,
      user_id: "U1",
      team_id: "T1",
      channel_id: "C1",
    });
    expect(commandOf(command("/handraise", " Cancel "))).toBe("cancel");
    expect(commandOf(command("/handraise", "question"))).toBe("question");
    expect(commandOf(command("/cancel"))).toBe("cancel");
    expect(commandOf(command("/handraise", "help"))).toBeUndefined();
  });
});

describe("the Slack app manifest", () => {
  const template = readFileSync(new URL("../../../infra/slack/manifest.yml", import.meta.url), "utf8");
  const url = "https://abc123.execute-api.us-east-1.amazonaws.com/webhooks/slack";

  it("points events, interactivity and /handraise at the webhook, with the scopes the code uses", () => {
    const manifest = parse(fillSlackManifest(template, url));
    expect(manifest.settings.event_subscriptions.request_url).toBe(url);
    expect(manifest.settings.interactivity).toEqual({ is_enabled: true, request_url: url });
    expect(manifest.features.slash_commands).toEqual([
      expect.objectContaining({ command: "/handraise", url }),
    ]);
    expect(manifest.oauth_config.scopes.bot).toEqual(
      expect.arrayContaining(["chat:write", "commands", "im:history", "im:read", "channels:history"]),
    );
    expect(manifest.settings.event_subscriptions.bot_events).toEqual(
      expect.arrayContaining(["message.im", "message.channels"]),
    );
    expect(JSON.stringify(manifest)).not.toContain("<SlackWebhookUrl>");
  });

  it("refuses a URL Slack would not call", () => {
    expect(() => fillSlackManifest(template, "http://example.com/webhooks/slack")).toThrow("https");
    expect(() => fillSlackManifest(template, "not a url")).toThrow("not a URL");
  });
});
