// aws-local-stepfunctions 3 targets Node 22 and calls Promise.withResolvers (ES2024) for every Task state.
// Node 20 lacks it, so the interpreter would throw a TypeError on the first Task; this fills the gap.

interface Resolvers<T> {
  promise: Promise<T>;
  resolve: (value: T | PromiseLike<T>) => void;
  reject: (reason?: unknown) => void;
}

/** `Promise.withResolvers` without relying on the ES2024 lib typings (tsconfig targets ES2023). */
export function createResolvers<T>(): Resolvers<T> {
  let resolve: Resolvers<T>["resolve"] = () => {};
  let reject: Resolvers<T>["reject"] = () => {};
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

if (!("withResolvers" in Promise)) {
  Object.defineProperty(Promise, "withResolvers", {
    value: createResolvers,
    writable: true,
    configurable: true,
  });
}
