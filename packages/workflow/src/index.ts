/**
 * @bizdata/workflow: staged multi-request workflows (the index protocol, staged state as an
 * overlay in PostgreSQL, questions, commit). Its API lands with the workflow release; the package
 * exists now so the workspace and its build have their final shape.
 */
export {};
