// The Monaco editors as the rest of the app uses them: lazy components (the
// editor and its workers load on first use, in their own chunks) and the
// kind's JSON Schema, which costs no Monaco code.
import { createElement, lazy, Suspense, type ComponentProps, type ComponentType } from 'react';

export { jsonSchemaFor, schemaUriFor } from './schema.ts';
export type { YamlMarker } from './YamlEditor.tsx';

const YamlEditor = lazy(() => import('./YamlEditor.tsx'));
const DiffEditor = lazy(() => import('./DiffEditor.tsx'));

function suspended<P extends object>(Component: ComponentType<P>, what: string) {
  return function Lazy(props: P) {
    return createElement(Suspense, { fallback: createElement('div', { className: 'monaco-loading' }, `Loading ${what}…`) }, createElement(Component, props));
  };
}

export const LazyYamlEditor = suspended<ComponentProps<typeof YamlEditor>>(YamlEditor, 'editor');
export const LazyDiffEditor = suspended<ComponentProps<typeof DiffEditor>>(DiffEditor, 'diff');
