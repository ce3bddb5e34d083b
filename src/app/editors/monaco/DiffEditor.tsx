// A read-only side-by-side diff of two YAML texts, with what each side is.
import { useRef } from 'react';
import { DiffEditor as MonacoDiff } from '@monaco-editor/react';
import './setup.ts';
import { useMonacoTheme } from './theme.ts';

export interface DiffEditorProps {
  original: string;
  modified: string;
  originalLabel: string;
  modifiedLabel: string;
  height?: number | string;
}

type Models = { original: { dispose(): void }; modified: { dispose(): void } } | null;

export default function DiffEditor({ original, modified, originalLabel, modifiedLabel, height = 360 }: DiffEditorProps) {
  const theme = useMonacoTheme();
  // @monaco-editor/react disposes the text models before the diff widget on
  // unmount, which the widget reports as an uncaught "TextModel got disposed
  // before DiffEditorWidget model got reset". The models are kept here and
  // disposed after the widget instead.
  const models = useRef<Models>(null);
  return (
    <div className="monaco-diff" data-testid="diff-editor" role="group" aria-label={`${originalLabel} against ${modifiedLabel}`}>
      <div className="monaco-diff-head">
        <span>{originalLabel}</span>
        <span>{modifiedLabel}</span>
      </div>
      <div className="monaco-frame" style={{ height }}>
        <MonacoDiff
          original={original}
          modified={modified}
          language="yaml"
          theme={theme}
          loading={<div className="monaco-loading">Loading diff…</div>}
          keepCurrentOriginalModel
          keepCurrentModifiedModel
          onMount={(editor) => {
            models.current = editor.getModel();
            editor.onDidChangeModel(() => {
              models.current = editor.getModel() ?? models.current;
            });
            editor.onDidDispose(() => {
              models.current?.original.dispose();
              models.current?.modified.dispose();
              models.current = null;
            });
            // Named for screen readers (the diff options' aria labels do not reach the text areas).
            editor.getOriginalEditor().updateOptions({ ariaLabel: originalLabel });
            editor.getModifiedEditor().updateOptions({ ariaLabel: modifiedLabel });
          }}
          options={{ readOnly: true, originalEditable: false, renderSideBySide: true, minimap: { enabled: false }, fontSize: 13, scrollBeyondLastLine: false, automaticLayout: true, renderOverviewRuler: false, hideUnchangedRegions: { enabled: true, contextLineCount: 3, minimumLineCount: 3, revealLineCount: 10 } }}
        />
      </div>
    </div>
  );
}
