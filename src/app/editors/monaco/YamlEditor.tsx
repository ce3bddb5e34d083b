// The YAML editor: Monaco with the kind's JSON Schema (completion, hover,
// validation from monaco-yaml) and the server's or the form's errors shown as
// markers on the lines that hold the fields they name; a hover may say more
// of a field (who manages it).
import { useEffect, useId, useRef } from 'react';
import Editor, { type OnMount } from '@monaco-editor/react';
import { monaco, registerSchema } from './setup.ts';
import { locateNearest, pathAt } from './locate.ts';
import { useMonacoTheme } from './theme.ts';

export interface YamlMarker {
  /** A Kubernetes field path (`spec.ingress[0].ports[0].endPort`); empty for the whole object. */
  path: string;
  message: string;
  severity: 'error' | 'warning';
}

export interface YamlEditorProps {
  value: string;
  onChange?: (text: string) => void;
  /** JSON Schema for completion and validation; `{}` for none. */
  schema: object;
  schemaUri: string;
  markers?: YamlMarker[];
  /** Ctrl/Cmd+S inside the editor. */
  onSave?: () => void;
  readOnly?: boolean;
  height?: number | string;
  label?: string;
  /** Markdown for the hover over a field (its keys and list indexes in the text), shown beside the schema's help. */
  fieldHover?: (path: (string | number)[], text: string) => string | undefined;
}

type Editor = Parameters<OnMount>[0];

export default function YamlEditor({ value, onChange, schema, schemaUri, markers = [], onSave, readOnly, height = 480, label = 'YAML', fieldHover }: YamlEditorProps) {
  const theme = useMonacoTheme();
  // One model path per editor instance; monaco-yaml picks the schema by it.
  const modelPath = `file:///kw/${useId().replace(/[^a-zA-Z0-9]/g, '')}.yaml`;
  const editorRef = useRef<Editor | null>(null);
  const saveRef = useRef(onSave);
  saveRef.current = onSave;
  const hoverRef = useRef(fieldHover);
  hoverRef.current = fieldHover;
  const disposeHover = useRef<() => void>(undefined);
  useEffect(() => () => disposeHover.current?.(), []);

  useEffect(() => registerSchema(modelPath, schemaUri, schema), [modelPath, schemaUri, schema]);

  // Each marker on the line of its field (or of the nearest ancestor the text has); the whole document when none.
  const located = markers.map((m) => ({ ...m, range: (m.path && locateNearest(value, m.path)) || undefined }));

  const placeMarkers = () => {
    const model = editorRef.current?.getModel();
    if (!model) return;
    const text = model.getValue();
    monaco.editor.setModelMarkers(
      model,
      'kubernetes',
      markers.map((m) => {
        const range = (m.path && locateNearest(text, m.path)) || { startLine: 1, startColumn: 1, endLine: 1, endColumn: model.getLineMaxColumn(1) };
        return {
          severity: m.severity === 'error' ? monaco.MarkerSeverity.Error : monaco.MarkerSeverity.Warning,
          message: m.message,
          startLineNumber: range.startLine,
          startColumn: range.startColumn,
          endLineNumber: range.endLine,
          endColumn: Math.max(range.endColumn, range.startColumn + 1),
        };
      }),
    );
  };
  useEffect(placeMarkers, [markers]);

  const reveal = (line: number, column: number) => {
    const editor = editorRef.current;
    if (!editor) return;
    editor.revealLineInCenter(line);
    editor.setPosition({ lineNumber: line, column });
    editor.focus();
  };

  const onMount: OnMount = (editor) => {
    editorRef.current = editor;
    editor.addCommand(monaco.KeyMod.CtrlCmd | monaco.KeyCode.KeyS, () => saveRef.current?.());
    // Hover providers are per language: this one answers for this editor's model only.
    const hover = monaco.languages.registerHoverProvider('yaml', {
      provideHover(model, position) {
        if (model !== editor.getModel() || !hoverRef.current) return null;
        const text = model.getValue();
        const path = pathAt(text, position.lineNumber, position.column);
        const markdown = path && hoverRef.current(path, text);
        if (!markdown) return null;
        const word = model.getWordAtPosition(position);
        const range = word ? new monaco.Range(position.lineNumber, word.startColumn, position.lineNumber, word.endColumn) : undefined;
        return { range, contents: [{ value: markdown }] };
      },
    });
    disposeHover.current = () => hover.dispose();
    placeMarkers();
  };

  return (
    <>
      <div className="monaco-frame" data-testid="yaml-editor" aria-label={label} role="group" style={{ height }}>
        <Editor
          path={modelPath}
          language="yaml"
          value={value}
          theme={theme}
          onChange={(text) => onChange?.(text ?? '')}
          onMount={onMount}
          loading={<div className="monaco-loading">Loading editor…</div>}
          options={{
            readOnly,
            minimap: { enabled: false },
            fontSize: 13,
            tabSize: 2,
            scrollBeyondLastLine: false,
            automaticLayout: true,
            renderWhitespace: 'boundary',
            quickSuggestions: { other: true, comments: false, strings: true },
            ariaLabel: label,
            fixedOverflowWidgets: true,
          }}
        />
      </div>
      {located.length > 0 && (
        <ul className="yaml-problems" aria-label="Problems">
          {located.map((m, i) => (
            <li key={i} className={m.severity} data-line={m.range?.startLine ?? 1}>
              <button type="button" className="btn link" onClick={() => reveal(m.range?.startLine ?? 1, m.range?.startColumn ?? 1)}>
                Line {m.range?.startLine ?? 1}
              </button>
              : {m.message}
            </li>
          ))}
        </ul>
      )}
    </>
  );
}
