import type { DefaultTheme, UserConfig } from "vitepress";

/**
 * The guides' sidebar: one page per topic, grouped as a team meets them. Every page under
 * docs/guide is listed here (test/docs.test.ts checks it), so none is reachable only by URL.
 */
export const sidebar: DefaultTheme.SidebarItem[] = [
  {
    text: "Getting started",
    items: [
      { text: "Quick start", link: "/guide/quick-start" },
      { text: "A tour with curl", link: "/guide/tour" },
      { text: "Your own model", link: "/guide/own-model" },
      { text: "Embedding", link: "/guide/embedding" },
      { text: "The packages", link: "/guide/packages" },
    ],
  },
  {
    text: "Modelling",
    items: [
      { text: "Declaring entities", link: "/guide/entities" },
      { text: "Business logic", link: "/guide/business-logic" },
      { text: "Custom methods", link: "/guide/methods" },
    ],
  },
  {
    text: "The API",
    items: [
      { text: "Batch", link: "/guide/batch" },
      { text: "Importing data", link: "/guide/importing" },
      { text: "Syncing with delta links", link: "/guide/change-tracking" },
      { text: "Service document and $metadata", link: "/guide/metadata" },
      { text: "OpenAPI and docs page", link: "/guide/openapi" },
      { text: "The web app", link: "/guide/web-app" },
      { text: "Connecting OData clients", link: "/guide/clients" },
      { text: "Connecting an MCP client", link: "/guide/mcp" },
      { text: "Error codes", link: "/guide/errors" },
    ],
  },
  {
    text: "Running a host",
    items: [
      { text: "Using PostgreSQL", link: "/guide/postgresql" },
      { text: "PostgreSQL topologies", link: "/guide/topologies" },
      { text: "Citus", link: "/guide/citus" },
      { text: "Configuration", link: "/guide/configuration" },
      { text: "Operating the host", link: "/guide/operating" },
      { text: "Access control", link: "/guide/access-control" },
      { text: "Security", link: "/guide/security" },
      { text: "OAuth 2.1", link: "/guide/oauth" },
    ],
  },
  {
    text: "The project",
    items: [
      { text: "Decisions", link: "/guide/decisions" },
      { text: "Development", link: "/guide/development" },
      { text: "Benchmarks", link: "/guide/benchmarks" },
    ],
  },
];

// a type-only import of vitepress: the build reads this file, and so can a test without loading vite
export default {
  title: "bizdata",
  description: "A TypeScript framework for business-data services: entities declared once, an OData API on PostgreSQL",
  // the build runs in CI without network: the default theme's fonts are bundled, search is local
  themeConfig: {
    nav: [
      { text: "Guide", link: "/guide/quick-start" },
      { text: "Configuration", link: "/guide/configuration" },
    ],
    sidebar,
    outline: [2, 3],
    search: { provider: "local" },
  },
} satisfies UserConfig<DefaultTheme.Config>;
