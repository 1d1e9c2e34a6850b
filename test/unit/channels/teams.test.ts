import { afterEach, describe, expect, it, vi } from "vitest";
import {
  activityToInbound,
  conversationOf,
  formAnswers,
  withInputs,
} from "#lib/channels/teams/teams-activity.ts";
import { createTeamsApi, type TeamsApi, type TeamsMember } from "#lib/channels/teams/teams-api.ts";
import {
  createTeamsChannel,
  isPersonalChatWith,
  isTrustedServiceUrl,
} from "#lib/channels/teams/teams-channel.ts";
import { escapeCardText, renderQuestionCard, renderRetiredCard } from "#lib/channels/teams/teams-render.ts";
import type { QuestionRecord } from "#lib/questions/question-record.ts";
import type { AnswerLinks } from "#lib/web/answer-link.ts";

const deploy = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging", description: "safe" }, { label: "Production" }],
  allowOther: true as const,
};
const checks = {
  id: "checks",
  header: "Checks",
  question: "Which checks?",
  multiSelect: true as const,
  options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
  allowOther: true as const,
};
const record = (
  questions: QuestionRecord["questions"],
  extra: Partial<QuestionRecord> = {},
): QuestionRecord => ({
  id: "ask_1",
  status: "pending",
  questions,
  owner: "teams:aad-1",
  deliveries: [],
  createdAtMs: 0,
  expiresAtMs: 1,
  ...extra,
});

describe("Teams cards", () => {
  it("escape Markdown emphasis, links and line-leading list markers in model-written text", () => {
    expect(escapeCardText("*bold* [x](https://evil.example) a_b")).toBe(
      "\\*bold\\* \\[x\\](https://evil.example) a\\_b",
    );
    expect(escapeCardText("1. one\n- two\nv1.4 - fine")).toBe("1\\. one\n\\- two\nv1.4 - fine");
  });

  it("retired: the questions and the outcome, no inputs or actions", () => {
    const card = renderRetiredCard(
      record([deploy], { status: "answered", answers: { deploy_target: ["Production"] } }),
    );
    expect(card.actions).toBeUndefined();
    expect(JSON.stringify(card)).not.toMatch(/Input\.|Action\./);
    expect(JSON.stringify(card)).toContain("Answered — Deploy to: Production");
  });

  it("show an option's description under the buttons, and in a choice's title", () => {
    expect(JSON.stringify(renderQuestionCard(record([deploy])))).toContain("Staging — safe");
    const multi = renderQuestionCard(record([checks, deploy]));
    expect(JSON.stringify(multi)).toContain('"title":"Unit","value":"0"');
    expect(JSON.stringify(renderQuestionCard(record([checks, deploy]), { step: 1 }))).toContain(
      "Staging — safe",
    );
  });

  it("at a step: its progress, the codec's data on every control, the draft's choice marked, Back", () => {
    const stepped = record([deploy, checks], {
      draft: { deploy_target: ["Production"], checks: ["Lint", "Fuzz"] },
    });
    const first: any = renderQuestionCard(stepped, { step: 0 });
    expect(first.body[0]).toMatchObject({ type: "TextBlock", text: "1 of 2" });
    const buttons = first.body.find((e: any) => e.type === "ActionSet").actions;
    expect(buttons).toEqual([
      {
        type: "Action.Submit",
        title: "Staging",
        data: { handraise: "o|0|0|ask_1" },
        associatedInputs: "none",
      },
      {
        type: "Action.Submit",
        title: "Production",
        data: { handraise: "o|0|1|ask_1" },
        associatedInputs: "none",
        style: "positive",
      },
    ]);
    expect(first.actions.map((a: any) => [a.title, a.data?.handraise])).toEqual([
      ["Send", "x|0|0|ask_1"],
      ["Skip", "s|0|0|ask_1"],
    ]);
    const link = { kind: "link", url: "https://h.example/answer/ask_1" } as const;
    const second: any = renderQuestionCard(stepped, { step: 1, browser: link });
    expect(second.body[0]).toMatchObject({ text: "2 of 2" });
    expect(second.body.find((e: any) => e.type === "Input.ChoiceSet")).toMatchObject({
      id: "choice1",
      isMultiSelect: true,
      value: "2",
    });
    expect(second.body.find((e: any) => e.type === "Input.Text")).toMatchObject({
      id: "other1",
      value: "Fuzz",
    });
    expect(second.actions.map((a: any) => [a.type, a.title, a.data?.handraise])).toEqual([
      ["Action.Submit", "Done", "d|1|0|ask_1"],
      ["Action.Submit", "Back", "b|1|0|ask_1"],
      ["Action.Submit", "Skip", "s|1|0|ask_1"],
      ["Action.OpenUrl", "Answer in browser", undefined],
    ]);
    expect(second.actions[3].url).toBe(link.url);
  });

  it("a shared card (the control) or the page off: no browser control and no link at all", () => {
    for (const browser of [{ kind: "control" }, { kind: "none" }] as const) {
      const card = renderQuestionCard(record([deploy]), { browser });
      expect(JSON.stringify(card)).not.toMatch(/Answer in browser|OpenUrl|\/answer\//);
      expect((card.actions as { title: string }[]).map((a) => a.title)).toEqual(["Send", "Skip"]);
    }
  });
});

describe("Teams taps and messages", () => {
  const base = {
    type: "message",
    id: "1",
    channelId: "msteams",
    serviceUrl: "https://smba.trafficmanager.net/amer/",
    from: { id: "29:x", aadObjectId: "aad-1" },
    recipient: { id: "28:bot" },
    conversation: { id: "19:chan@thread.tacv2;messageid=1700", conversationType: "channel" },
  };

  it("read a step's choice set (option indexes) and own-answer box against its question only", () => {
    const r = record([deploy, checks]);
    const inputs = { choice0: "1", other0: "", choice1: "0,2", other1: " Fuzz " };
    expect(formAnswers(r, 1, inputs)).toEqual({ checks: ["Unit", "Lint", "Fuzz"] });
    expect(formAnswers(r, 0, inputs)).toEqual({ deploy_target: ["Production"] });
    // Single-select: the typed text wins over a tick; nothing at all gives no answer.
    expect(formAnswers(r, 0, { choice0: "0", other0: "Canary" })).toEqual({ deploy_target: ["Canary"] });
    expect(formAnswers(r, 0, { choice0: "7,x" })).toEqual({});
  });

  it("read a tap's control string: option, Back and Skip are controls; Done and Send forms read by withInputs", () => {
    const tapped = (handraise: string, inputs: Record<string, string> = {}) =>
      activityToInbound({ ...base, replyToId: "card-1", value: { handraise, ...inputs } });
    expect(tapped("o|0|1|ask_1")?.inbound).toMatchObject({
      kind: "control",
      questionId: "ask_1",
      action: { type: "option", questionIndex: 0, optionIndex: 1 },
    });
    expect(tapped("b|1|0|ask_1")?.inbound).toMatchObject({ action: { type: "back", questionIndex: 1 } });
    expect(tapped("not|a|control")).toBeUndefined();
    const r = record([deploy, checks]);
    const done = tapped("d|1|0|ask_1", { choice1: "0,2" });
    if (done?.inbound.kind !== "form" || !done.control) throw new Error("Done is not a form tap");
    expect(withInputs(done.inbound, done.control, r, { choice1: "0,2" })).toMatchObject({
      kind: "form",
      answers: { checks: ["Unit", "Lint"] },
      step: 1,
    });
    // Nothing ticked or typed: the control itself, so the pipeline checks the owner before anything is said.
    expect(withInputs(done.inbound, done.control, r, { choice1: "" })).toMatchObject({
      kind: "control",
      action: { type: "choose", questionIndex: 1, optionIndexes: [] },
    });
    const send = tapped("x|0|0|ask_1");
    if (send?.inbound.kind !== "form" || !send.control) throw new Error("Send is not a form tap");
    expect(withInputs(send.inbound, send.control, r, { other0: " " })).toMatchObject({
      kind: "control",
      action: { type: "other", questionIndex: 0 },
    });
  });

  it("take a channel thread's root from the conversation id, and count only mentions of the bot", () => {
    expect(conversationOf("19:chan@thread.tacv2;messageid=1700")).toEqual({
      chatId: "19:chan@thread.tacv2",
      threadRoot: "1700",
    });
    const mention = { type: "mention", text: "<at>Handraise</at>", mentioned: { id: "28:bot" } };
    const addressed = activityToInbound({ ...base, text: "<at>Handraise</at> 2", entities: [mention] });
    expect(addressed?.inbound).toMatchObject({
      kind: "text",
      text: "2",
      addressed: true,
      chatId: "19:chan@thread.tacv2",
      replyToMessageId: "1700",
      actor: "teams:aad-1",
    });
    const other = { ...mention, mentioned: { id: "29:someone" } };
    expect(activityToInbound({ ...base, text: "2", entities: [other] })?.inbound).toMatchObject({
      addressed: false,
    });
  });

  it("ignore what is not a person's message: other types, other channels, no Entra id, foreign cards", () => {
    expect(activityToInbound({ ...base, type: "conversationUpdate" })).toBeUndefined();
    expect(activityToInbound({ ...base, channelId: "webchat", text: "2" })).toBeUndefined();
    expect(activityToInbound({ ...base, from: { id: "29:guest" }, text: "2" })).toBeUndefined();
    expect(activityToInbound({ ...base, value: { some: "other card" } })).toBeUndefined();
  });
});

describe("Teams reminders", () => {
  it("reply to the card on its service URL, leaving the card as it is; none to an untrusted URL", async () => {
    const calls: unknown[][] = [];
    const api = {
      send: async () => ({ id: "unused" }),
      update: async (...args: unknown[]) => void calls.push(["update", ...args]),
      reply: async (...args: unknown[]) => void calls.push(["reply", ...args]),
      members: async () => [],
    };
    const channel = createTeamsChannel(api, { apiBase: "https://smba.trafficmanager.net/teams/" });
    const delivery = {
      channel: "teams",
      chatId: "a:1",
      messageId: "card-1",
      serviceUrl: "https://smba.trafficmanager.net/amer/",
    };
    await channel.remind(record([deploy]), delivery, { leftMs: 300_000 });
    await channel.remind(
      record([deploy]),
      { ...delivery, serviceUrl: "https://attacker.example/" },
      { leftMs: 1 },
    );
    expect(calls).toEqual([
      [
        "reply",
        "https://smba.trafficmanager.net/amer/",
        "a:1",
        "card-1",
        { type: "message", text: "Still waiting for your answer — 5 min left" },
      ],
    ]);
  });
});

describe("Teams service URLs", () => {
  const apiBase = "https://smba.trafficmanager.net/teams/";
  it("are trusted only on Bot Connector hosts or the configured base", () => {
    expect(isTrustedServiceUrl("https://smba.trafficmanager.net/amer/", apiBase)).toBe(true);
    expect(isTrustedServiceUrl("https://europe.smba.botframework.com/", apiBase)).toBe(true);
    expect(isTrustedServiceUrl("http://127.0.0.1:9/x/", "http://127.0.0.1:9/teams/")).toBe(true);
    expect(isTrustedServiceUrl("https://evil.example/", apiBase)).toBe(false);
    expect(isTrustedServiceUrl("https://smba.trafficmanager.net.evil.example/", apiBase)).toBe(false);
    expect(isTrustedServiceUrl("http://smba.trafficmanager.net/amer/", apiBase)).toBe(false);
    expect(isTrustedServiceUrl("not a url", apiBase)).toBe(false);
  });
});

describe("Teams: which card carries the answerer's link", () => {
  const person = (aad: string): TeamsMember => ({ id: `29:user-${aad}`, aadObjectId: aad });
  const bot: TeamsMember = { id: "28:app-id" };

  it("a personal chat (`a:…`) whose one person is the answerer; nothing else", () => {
    expect(isPersonalChatWith("a:1", [person("aad-1")], "aad-1")).toBe(true);
    expect(isPersonalChatWith("a:1", [bot, person("aad-1")], "aad-1")).toBe(true);
    // Another person's personal chat, or a roster that is not one person.
    expect(isPersonalChatWith("a:1", [person("aad-2")], "aad-1")).toBe(false);
    expect(isPersonalChatWith("a:1", [person("aad-1"), person("aad-2")], "aad-1")).toBe(false);
    expect(isPersonalChatWith("a:1", [bot], "aad-1")).toBe(false);
    expect(isPersonalChatWith("a:1", [], "aad-1")).toBe(false);
    expect(isPersonalChatWith("a:1", [{ id: "29:guest" }], "aad-1")).toBe(false);
    // A group chat or a channel with the answerer alone in it: not personal (members may join).
    expect(isPersonalChatWith("19:abc@thread.v2", [person("aad-1")], "aad-1")).toBe(false);
    expect(isPersonalChatWith("19:abc@thread.tacv2", [person("aad-1")], "aad-1")).toBe(false);
  });

  const links: AnswerLinks = {
    isOn: async () => true,
    urlFor: async (question, answerer = question.owner) =>
      `https://h.example/answer/${question.id}?as=${answerer}`,
    privacyUnconfirmed: (channel, error) => unconfirmed.push(`${channel}: ${(error as Error).message}`),
  };
  const unconfirmed: string[] = [];
  function channelWith(members: TeamsApi["members"]) {
    const sent: any[] = [];
    const asked: string[] = [];
    const api: TeamsApi = {
      send: async (_url, _conversation, activity) => {
        sent.push(activity);
        return { id: "card-1" };
      },
      update: async () => undefined,
      reply: async () => undefined,
      members: async (url, conversation) => {
        asked.push(conversation);
        return members(url, conversation);
      },
    };
    const channel = createTeamsChannel(api, { apiBase: "https://smba.trafficmanager.net/teams/" }, links);
    return { channel, sent, asked };
  }
  const actionsOf = (activity: any) => activity.attachments[0].content.actions as any[];

  it("deliver: the roster confirms the answerer's personal chat → their link, and privateTo", async () => {
    const { channel, sent } = channelWith(async () => [person("aad-9")]);
    const target = { channel: "teams", chatId: "a:1" };
    const delivery = await channel.deliver(record([deploy]), target, "teams:aad-9");
    expect(delivery.privateTo).toBe("teams:aad-9");
    expect(actionsOf(sent[0]).at(-1)).toEqual({
      type: "Action.OpenUrl",
      title: "Answer in browser",
      url: "https://h.example/answer/ask_1?as=teams:aad-9",
    });
  });

  it("deliver: a group chat, another person's chat, a failed roster read → no link, no browser control", async () => {
    const cases: [string, TeamsApi["members"], string][] = [
      ["19:group@thread.v2", async () => [person("aad-1")], "teams:aad-1"],
      ["a:1", async () => [person("aad-2")], "teams:aad-1"],
      [
        "a:1",
        async () => {
          throw new Error("503");
        },
        "teams:aad-1",
      ],
      ["a:1", async () => [person("aad-1")], "slack:T1:U1"],
    ];
    unconfirmed.length = 0;
    for (const [chatId, members, answerer] of cases) {
      const { channel, sent, asked } = channelWith(members);
      const delivery = await channel.deliver(record([deploy]), { channel: "teams", chatId }, answerer);
      expect(delivery).not.toHaveProperty("privateTo");
      expect(JSON.stringify(sent[0])).not.toMatch(/Answer in browser|\/answer\//);
      // Only a conversation of the personal form is worth asking about.
      expect(asked).toEqual(chatId.startsWith("a:") && answerer.startsWith("teams:") ? [chatId] : []);
    }
    // Only the failed read is reported (an operator sees why a personal chat got no link).
    expect(unconfirmed).toEqual(["teams: 503"]);
  });
});

describe("The Bot Connector client", () => {
  afterEach(() => vi.unstubAllGlobals());

  it("asks for an app token once, and again only shortly before it expires", async () => {
    let now = 1_000_000;
    const calls: string[] = [];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string) => {
        calls.push(url);
        const body = url.endsWith("/token")
          ? { access_token: `token-${calls.length}`, expires_in: 3600 }
          : { id: "a1" };
        return new Response(JSON.stringify(body), { status: 200 });
      }),
    );
    const api = createTeamsApi({
      appId: "app",
      appPassword: async () => "password",
      tokenUrl: "https://login.example/tenant/oauth2/v2.0/token",
      now: () => now,
    });
    const card = { type: "message" as const, text: "hi" };
    await api.send("https://smba.trafficmanager.net/amer/", "a:1", card);
    await api.send("https://smba.trafficmanager.net/amer/", "a:1", card);
    now += 54 * 60 * 1000; // 54 minutes: still more than 5 before the hour is up
    await api.update("https://smba.trafficmanager.net/amer/", "a:1", "a1", card);
    expect(calls.filter((url) => url.endsWith("/token"))).toHaveLength(1);
    now += 2 * 60 * 1000; // within the last 5 minutes: a new one
    await api.reply("https://smba.trafficmanager.net/amer/", "a:1", "a1", card);
    expect(calls.filter((url) => url.endsWith("/token"))).toHaveLength(2);
    expect(calls.at(-1)).toBe("https://smba.trafficmanager.net/amer/v3/conversations/a%3A1/activities/a1");
  });

  it("reads a conversation's members; a reply that is not a member list is an error", async () => {
    const requests: { url: string; method: string | undefined }[] = [];
    let roster: unknown = [{ id: "29:u", aadObjectId: "aad-1", name: "Megan" }];
    vi.stubGlobal(
      "fetch",
      vi.fn(async (url: string, init?: RequestInit) => {
        requests.push({ url, method: init?.method });
        const body = url.endsWith("/token") ? { access_token: "t", expires_in: 3600 } : roster;
        return new Response(JSON.stringify(body), { status: 200 });
      }),
    );
    const api = createTeamsApi({
      appId: "app",
      appPassword: async () => "password",
      tokenUrl: "https://login.example/tenant/oauth2/v2.0/token",
      now: () => 0,
    });
    const members = await api.members("https://smba.trafficmanager.net/amer/", "a:1");
    expect(members).toMatchObject([{ id: "29:u", aadObjectId: "aad-1" }]);
    expect(requests.at(-1)).toEqual({
      url: "https://smba.trafficmanager.net/amer/v3/conversations/a%3A1/members",
      method: "GET",
    });
    roster = { members: [] };
    await expect(api.members("https://smba.trafficmanager.net/amer/", "a:1")).rejects.toThrow(
      /not a member list/,
    );
  });
});
