/**
 * A deployment without a link secret: the answer page is off. Its route answers 404 to every request, the
 * question API returns no `answerUrl`, and nothing is posted with a link.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { singleQuestion, unique } from "./support/sample-questions.ts";
import { startTestStack, type TestStack } from "./support/test-stack.ts";

let stack: TestStack;
let printed = "";
const write = process.stdout.write.bind(process.stdout);

beforeAll(async () => {
  // Empty counts as unset (lib/config.ts), over the link secret the local stack would make up.
  stack = await startTestStack({ HANDRAISE_LINK_SECRET: "" });
  process.stdout.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
    printed += String(chunk);
    return write(chunk, ...rest);
  }) as typeof process.stdout.write;
});
afterAll(async () => {
  process.stdout.write = write;
  await stack?.stop();
});

describe("without a link secret", () => {
  it("the question API makes no link, the console copy carries none, and the page's route is a 404 page", async () => {
    const created = await stack.api("POST", "/questions", {
      questions: [singleQuestion],
      owner: "web:ann",
      sessionKey: unique("off"),
      deliverTo: [{ channel: "console", chatId: "terminal" }],
    });
    expect(created.status).toBe(201);
    expect(created.body.answerUrl).toBeUndefined();
    expect((await stack.api("GET", `/questions/${created.body.id}`)).body.answerUrl).toBeUndefined();
    expect(printed).toContain(created.body.id);
    expect(printed).not.toContain("Answer in browser");

    const url = `${stack.httpUrl}/answer/${created.body.id}?sig=${"A".repeat(43)}`;
    for (const method of ["GET", "POST"]) {
      const response = await fetch(url, {
        method,
        ...(method === "POST" && {
          headers: { "content-type": "application/x-www-form-urlencoded" },
          body: "action=skip",
        }),
      });
      expect(response.status).toBe(404);
      expect(response.headers.get("content-type")).toBe("text/html; charset=utf-8");
      expect(await response.text()).toContain("There is no answer page here.");
    }
    expect((await stack.api("GET", `/questions/${created.body.id}`)).body.question.status).toBe("pending");
  });
});
