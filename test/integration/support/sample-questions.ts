/** The questions the integration tests ask, and unique names for their sessions. */

let counter = 0;
/** A name no other test in this process uses (sessions, owners, chats). */
export const unique = (prefix: string) => `${prefix}-${Date.now()}-${++counter}`;

export const singleQuestion = {
  id: "deploy_target",
  header: "Deploy to",
  question: "Where should it go?",
  options: [{ label: "Staging (Recommended)" }, { label: "Production" }],
};

export const multiQuestion = {
  id: "checks",
  header: "Checks",
  question: "Which checks?",
  multiSelect: true,
  options: [{ label: "Unit" }, { label: "E2E" }, { label: "Lint" }],
};

export const noteQuestion = {
  id: "release_note",
  header: "Release note",
  question: "What kind of release note?",
  options: [{ label: "Routine (Recommended)" }, { label: "Urgent" }],
};
