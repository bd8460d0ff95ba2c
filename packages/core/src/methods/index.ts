export {
  disabledMethods,
  invokeMethod,
  type MethodCall,
  type MethodEnvironment,
  type MethodOutcome,
  resolveMethod,
} from "./invoke-method.js";
export * from "./method.js";
