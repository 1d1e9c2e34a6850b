/**
 * What every chat webhook is built from besides its platform's own client and secrets, and the empty
 * acknowledgement several platforms want. The platform handler itself only parses and renders: the
 * prelude (lib/http/webhook-prelude.ts) has verified the request, the pipeline (lib/app/handle-inbound.ts)
 * decides, and the sentences come from replies.ts.
 */
import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { HandleInbound } from "../app/handle-inbound.ts";
import type { QuestionStore } from "../store/question-store.ts";
import type { AnswerLinks } from "../web/answer-link.ts";

export interface ChatWebhookDeps {
  store: QuestionStore;
  handleInbound: HandleInbound;
  /** Epoch ms. */
  now: () => number;
  /** The answer page's links, for the "Answer in browser" control of a prompt redrawn at a step. */
  links: AnswerLinks;
  /** Reports what does not change the outcome: a notice, modal or edit the platform did not take. */
  onError: (error: unknown, context: string) => void;
}

/** A 200 with no body: Slack's and the Bot Framework's acknowledgement; everything else goes through their APIs. */
export const EMPTY_ACK: APIGatewayProxyStructuredResultV2 = {
  statusCode: 200,
  headers: { "cache-control": "no-store" },
  body: "",
};
