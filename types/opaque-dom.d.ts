// For tsconfig.node.json only (the engine, compiled without the DOM library): Playwright's signatures
// name DOM types (an `evaluate` callback gets an `HTMLElement | SVGElement`); without the library
// those names would resolve to nothing and every callback's element would silently be `any`. Here
// they exist and have no members, so the engine can pass elements along but not use them: reading an
// element is page code, and page code lives in src-main/agent/injected/.
// biome-ignore-all lint/suspicious/noEmptyInterface: opaque on purpose (see above)
// biome-ignore-all lint/correctness/noUnusedVariables: global declarations Playwright's types refer to
interface Node {}
interface Element extends Node {}
interface HTMLElement extends Element {}
interface SVGElement extends Element {}
interface Document extends Node {}
interface Window {}
