/**
 * The ask_user call the cost script and the benchmark both measure: one question with three described
 * options — the size of a typical record.
 */
export const SAMPLE_TOOL_CALL = {
  id: "call_1",
  name: "ask_user",
  arguments: {
    questions: [
      {
        id: "deploy_target",
        header: "Deploy",
        question: "The checks passed. Where should this release go first?",
        options: [
          { label: "Staging", description: "Deploy to staging and wait for a smoke test" },
          { label: "Production", description: "Deploy straight to production" },
          { label: "Hold", description: "Do not deploy today" },
        ],
      },
    ],
    timeoutSeconds: 900,
  },
};
