// For tools that read TypeScript without Vue's language service (type-aware lint); vue-tsc
// resolves the real components and ignores this.
declare module '*.vue' {
  import type { DefineComponent } from 'vue';
  const component: DefineComponent;
  export default component;
}
