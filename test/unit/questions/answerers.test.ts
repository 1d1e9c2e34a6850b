import { describe, expect, it } from "vitest";
import {
  answererEntrySchema,
  answerersOf,
  answerRefusal,
  mayAnswer,
  onlyRequesterAnswers,
  viaOwnLink,
  votersOf,
} from "#lib/questions/question-record.ts";
import { questionRecord } from "../../support/records.ts";

const GROUP = { channel: "telegram", chatId: "-100" };
const asked = {
  owner: "telegram:1",
  createdAtMs: 10,
  escalate: { afterSeconds: 60, owner: "slack:T1:U9", deliverTo: [{ channel: "slack", chatId: "D9" }] },
  askedAnswerers: [{ owner: "web:bob" }, { group: GROUP }],
};

describe("who may answer", () => {
  it("the owner and the listed answerers from the start, then the escalation owner", () => {
    expect(answerersOf(asked)).toEqual([
      { owner: "telegram:1", fromMs: 10 },
      { owner: "web:bob", fromMs: 10 },
      { group: GROUP, fromMs: 10 },
      { owner: "slack:T1:U9", fromMs: 60_010 },
    ]);
  });

  it("a group's member only from inside that group, or through their own link", () => {
    const record = questionRecord({ ...asked, answerers: answerersOf(asked) });
    expect(mayAnswer(record, "telegram:77", 11, GROUP)).toBe(true);
    expect(mayAnswer(record, "telegram:77", 11, { channel: "telegram", chatId: "-200" })).toBe(false);
    expect(mayAnswer(record, "telegram:77", 11)).toBe(false);
    expect(mayAnswer(record, "telegram:77", 11, viaOwnLink("telegram:77"))).toBe(true);
    // Someone of another platform is no member of a Telegram group, wherever they say they acted.
    expect(mayAnswer(record, "slack:T1:U5", 11, GROUP)).toBe(false);
    expect(mayAnswer(record, "web:bob", 11)).toBe(true);
    expect(mayAnswer(record, "slack:T1:U9", 11)).toBe(false);
    expect(mayAnswer(record, "slack:T1:U9", 60_010)).toBe(true);
  });

  it("the requester never, even as a group member or a listed person", () => {
    const record = questionRecord({ ...asked, answerers: answerersOf(asked), requestedBy: "web:bob" });
    expect(answerRefusal(record, "web:bob", 11)).toBe("requester");
    const inGroup = questionRecord({ ...asked, answerers: answerersOf(asked), requestedBy: "telegram:77" });
    expect(answerRefusal(inGroup, "telegram:77", 11, GROUP)).toBe("requester");
  });

  it("the voters: every person once, the requester aside; none listed while a group may answer", () => {
    const people = { ...asked, askedAnswerers: [{ owner: "web:bob" }] };
    expect(votersOf({ ...people, answerers: answerersOf(people), requestedBy: "web:bob" })).toEqual([
      "telegram:1",
      "slack:T1:U9",
    ]);
    expect(votersOf({ ...asked, answerers: answerersOf(asked) })).toBeUndefined();
  });

  it("a group makes someone besides the requester able to answer", () => {
    const alone = { owner: "web:a", createdAtMs: 0, requestedBy: "web:a" };
    expect(onlyRequesterAnswers(alone)).toBe(true);
    expect(onlyRequesterAnswers({ ...alone, askedAnswerers: [{ group: GROUP }] })).toBe(false);
  });

  it("an entry is a person or a group, never both, and a group takes no deliverTo", () => {
    expect(answererEntrySchema.safeParse({ owner: "web:a" }).success).toBe(true);
    expect(answererEntrySchema.safeParse({ group: GROUP }).success).toBe(true);
    expect(answererEntrySchema.safeParse({}).success).toBe(false);
    expect(answererEntrySchema.safeParse({ owner: "web:a", group: GROUP }).success).toBe(false);
    const groupTargets = answererEntrySchema.safeParse({ group: GROUP, deliverTo: [] });
    expect(groupTargets.success).toBe(false);
    expect(groupTargets.error?.issues[0]?.message).toContain("is a group: its copy goes to the group's chat");
  });
});
