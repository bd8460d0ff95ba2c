export * from "./method.js";
export { disabledMethods, invokeMethod, type MethodCall, type MethodEnvironment, type MethodOutcome, resolveMethod } from "./invoke-method.js";
