// Monaco, bundled: the editor core with only the YAML language, its workers
// built by Vite (`?worker`), monaco-yaml for schema-driven completion, hover
// and validation, and @monaco-editor/react told to use this instance instead
// of fetching one from a CDN. This module is only ever imported lazily, so
// the first page does not pay for the editor.
import 'monaco-editor/esm/vs/editor/edcore.main.js';
import * as monaco from 'monaco-editor/esm/vs/editor/editor.api.js';
import 'monaco-editor/esm/vs/basic-languages/yaml/yaml.contribution.js';
import { loader } from '@monaco-editor/react';
import { configureMonacoYaml, type SchemasSettings } from 'monaco-yaml';
import EditorWorker from 'monaco-editor/esm/vs/editor/editor.worker.js?worker';
import YamlWorker from 'monaco-yaml/yaml.worker.js?worker';

(globalThis as { MonacoEnvironment?: unknown }).MonacoEnvironment = {
  getWorker: (_id: string, label: string) => (label === 'yaml' ? new YamlWorker() : new EditorWorker()),
};

loader.config({ monaco });

// Monaco cancels its own pending work (a delayed hover, a worker request) when
// an editor or model is disposed, and some of those paths reject a promise
// nobody awaits: an "Uncaught (in promise) Canceled" that is no fault
// (microsoft/monaco-editor#2382, #4702). Only that exact rejection is silenced;
// every other one still reaches the console and the tests' page-error checks.
window.addEventListener('unhandledrejection', (e) => {
  const r = e.reason as { name?: unknown; message?: unknown } | undefined;
  if (r?.name === 'Canceled' && r.message === 'Canceled') e.preventDefault();
});

// The app's own palette, so the editor sits in the page instead of on it.
monaco.editor.defineTheme('kw-light', {
  base: 'vs',
  inherit: true,
  // YAML keys a shade darker than vs's teal, so they keep AA contrast on diff highlights too.
  rules: [{ token: 'type', foreground: '006464' }],
  // Diff highlights light enough that every token keeps AA contrast on them.
  colors: { 'editor.background': '#ffffff', 'editorGutter.background': '#f6f7f9', 'diffEditor.removedTextBackground': '#ffb3b333', 'diffEditor.insertedTextBackground': '#9ccc2c26', 'diffEditor.removedLineBackground': '#ffb3b326', 'diffEditor.insertedLineBackground': '#9bb95520' },
});
monaco.editor.defineTheme('kw-dark', {
  base: 'vs-dark',
  inherit: true,
  rules: [],
  colors: { 'editor.background': '#161d27', 'editorGutter.background': '#131922', 'diffEditor.removedTextBackground': '#ff000024', 'diffEditor.insertedTextBackground': '#9ccc2c1a', 'diffEditor.removedLineBackground': '#ff00001a', 'diffEditor.insertedLineBackground': '#9bb95514' },
});

/** The schema registered per model path: monaco-yaml takes one list, so it is rebuilt on each change. */
const schemas = new Map<string, SchemasSettings>();
const yaml = configureMonacoYaml(monaco, {
  enableSchemaRequest: false,
  hover: true,
  completion: true,
  validate: true,
  format: { enable: true },
  schemas: [],
});

/** Applies `schema` to the model at `modelPath`; returns the function that removes it. */
export function registerSchema(modelPath: string, schemaUri: string, schema: object): () => void {
  schemas.set(modelPath, { uri: schemaUri, fileMatch: [modelPath], schema: schema as SchemasSettings['schema'] });
  void yaml.update({ schemas: [...schemas.values()] });
  return () => {
    schemas.delete(modelPath);
    void yaml.update({ schemas: [...schemas.values()] });
  };
}

export { monaco };
