/**
 * Walks an ASL definition along one scripted path and lists the states it enters — each entered state is one
 * billed state transition of a Standard workflow. Used to count what a question costs
 * (scripts/question-cost.ts) and to pin those counts in test/template.
 */

export interface AslState {
  Type: string;
  Next?: string;
  End?: boolean;
  Default?: string;
  Choices?: { Next: string }[];
  Catch?: { ErrorEquals: string[]; Next: string }[];
  [key: string]: unknown;
}

export interface AslDefinition {
  StartAt: string;
  States: Record<string, AslState>;
}

/**
 * What happens at each Task or Choice state, in the order the walk meets them:
 * - a Task: `"ok"` (follows Next) or `{ error }` (follows the first Catch that matches the error);
 * - a Choice: `{ choose: "<state>" }`, which must be one of its choices or its Default.
 * Pass states follow Next by themselves; Succeed, Fail and `End: true` finish the walk.
 */
export type Step = "ok" | { error: string } | { choose: string };

export function walk(definition: AslDefinition, steps: Step[]): string[] {
  const entered: string[] = [];
  const remaining = [...steps];
  let name: string | undefined = definition.StartAt;
  while (name !== undefined) {
    const state: AslState | undefined = definition.States[name];
    if (!state) throw new Error(`the walk reached "${name}", which is not a state`);
    entered.push(name);
    if (entered.length > 1000) throw new Error("the walk does not end");
    switch (state.Type) {
      case "Succeed":
      case "Fail":
        name = undefined;
        break;
      case "Pass":
      case "Wait":
        name = state.End ? undefined : state.Next;
        break;
      case "Choice": {
        const step = remaining.shift();
        if (!step || typeof step !== "object" || !("choose" in step)) {
          throw new Error(`Choice "${name}" needs a { choose } step, got ${JSON.stringify(step)}`);
        }
        const targets = [...(state.Choices ?? []).map((choice) => choice.Next), state.Default];
        if (!targets.includes(step.choose)) {
          throw new Error(`Choice "${name}" cannot go to "${step.choose}" (only ${targets.join(", ")})`);
        }
        name = step.choose;
        break;
      }
      case "Task": {
        const step = remaining.shift();
        if (step === "ok") {
          name = state.End ? undefined : state.Next;
        } else if (step && typeof step === "object" && "error" in step) {
          const error = step.error;
          const handler = state.Catch?.find(
            (c) => c.ErrorEquals.includes(error) || c.ErrorEquals.includes("States.ALL"),
          );
          if (!handler) throw new Error(`Task "${name}" has no Catch for ${error}: the run would fail`);
          name = handler.Next;
        } else {
          throw new Error(`Task "${name}" needs an "ok" or { error } step, got ${JSON.stringify(step)}`);
        }
        break;
      }
      default:
        throw new Error(`the walk does not model ${state.Type} states ("${name}")`);
    }
  }
  if (remaining.length > 0) throw new Error(`the walk ended with unused steps: ${JSON.stringify(remaining)}`);
  return entered;
}

/**
 * The reference agent's paths (infra/state-machines/agent.asl.json): the model asks `questions` times, each
 * ending with `ending` at the AskUser task, then replies.
 */
export function agentRunSteps(
  questions: number,
  ending: "answered" | { error: string } = "answered",
): Step[] {
  const steps: Step[] = [];
  for (let i = 0; i < questions; i++) {
    steps.push("ok", { choose: "AskUser" }, ending === "answered" ? "ok" : ending);
  }
  steps.push("ok", { choose: "Reply" });
  return steps;
}
