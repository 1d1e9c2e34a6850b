/**
 * The demo agent run: a scripted model that asks three questions at once (where to deploy, which checks,
 * what release note), then replies with the answers.
 */
import type { AgentInput } from "#lib/agent/model-step.ts";
import type { DeliveryTarget } from "#lib/questions/question-record.ts";

/**
 * Every field as `name=value`, so a field that does not apply reads as empty rather than running into its
 * neighbour: answered → `… | status=answered | reason=`; skipped → `deploy= | … | status=no_answer |
 * reason=skipped`.
 */
export const DEMO_REPLY_TEMPLATE =
  "deploy={{call_1.deploy_target}} | checks={{call_1.checks}} | note={{call_1.release_note}} | status={{call_1.status}} | reason={{call_1.reason}}";

export function demoAgentInput(options: {
  sessionKey: string;
  owner: string;
  deliverTo: DeliveryTarget[];
  timeoutSeconds: number;
}): AgentInput {
  return {
    sessionKey: options.sessionKey,
    owner: options.owner,
    deliverTo: options.deliverTo,
    prompt: "Ship release 1.4 — ask me where and how.",
    model: {
      provider: "scripted",
      steps: [
        {
          toolCalls: [
            {
              id: "call_1",
              name: "ask_user",
              arguments: {
                timeoutSeconds: options.timeoutSeconds,
                questions: [
                  {
                    id: "deploy_target",
                    header: "Deploy to",
                    question: "Where should release 1.4 go?",
                    options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
                  },
                  {
                    id: "checks",
                    header: "Checks",
                    question: "Which checks must pass first?",
                    multiSelect: true,
                    options: [{ label: "Unit (Recommended)" }, { label: "E2E" }, { label: "Lint" }],
                  },
                  {
                    id: "release_note",
                    header: "Release note",
                    question: "What kind of release note?",
                    options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
                  },
                ],
              },
            },
          ],
        },
        { reply: DEMO_REPLY_TEMPLATE },
      ],
    },
  };
}
