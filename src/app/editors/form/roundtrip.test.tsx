// @vitest-environment jsdom
// The DaemonSet corpus through the real form: every section opened, every
// input typed again with what it shows, every box ticked off and on. What
// the form would save must be exactly the stored object, nothing lost and
// nothing added (a form that reads values back from its inputs, or parses
// what it displays differently, fails here).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { act, cleanup, fireEvent, render } from '@testing-library/react';
import { daemonSetKind } from '../../../kinds/daemonset.ts';
import { parseYaml } from '../../../lib/yaml.ts';
import { buildFields } from './fields.ts';
import { kindForms } from './layouts.ts';
import { Fields } from './SchemaForm.tsx';
import { FormStoreProvider, useDraftForm, type FormStore } from './store.ts';
import { validateDraft } from './validation.ts';

const dir = join(import.meta.dirname, '../../../kinds/testdata/daemonsets');
const corpus = readdirSync(dir).filter((f) => f.endsWith('.yaml'));

/** Fires a change carrying the value the input already has (React skips a change it has already seen, so its tracker is reset first). */
function retype(el: HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement) {
  (el as any)._valueTracker?.setValue('\u0000');
  fireEvent.change(el, { target: { value: el.value } });
}

function renderForm(obj: any) {
  let store!: FormStore;
  const layout = kindForms.get(daemonSetKind)!;
  const fields = buildFields(daemonSetKind.schema, layout);
  function Form() {
    store = useDraftForm({ initial: obj, stored: obj });
    return (
      <FormStoreProvider value={store}>
        <Fields nodes={fields} base="" topLevel />
      </FormStoreProvider>
    );
  }
  const view = render(<Form />);
  return { store, view };
}

afterEach(cleanup);

describe('form round trip of the DaemonSet corpus', () => {
  it('has manifests to read', () => expect(corpus.length).toBeGreaterThan(3));

  for (const file of corpus) {
    it(`${file}: opened, retyped and ticked, the form saves exactly the stored object`, async () => {
      const stored = parseYaml(readFileSync(join(dir, file), 'utf8')).value as any;
      expect(await validateDraft(daemonSetKind, kindForms.get(daemonSetKind), stored)).toEqual([]);
      const { store, view } = renderForm(structuredClone(stored));
      // Open every collapsed part, and the parts inside those.
      for (let round = 0; round < 20; round++) {
        const closed = view.container.querySelectorAll<HTMLButtonElement>('.form-more > button[aria-expanded="false"]');
        if (!closed.length) break;
        act(() => closed.forEach((b) => b.click()));
      }
      expect(view.container.querySelectorAll('.form-more > button[aria-expanded="false"]')).toHaveLength(0);
      // Every field with a value in the manifest is on screen: the image of each container, for one.
      const containers = stored.spec.template.spec.containers as any[];
      containers.forEach((c, i) => expect((view.container.querySelector(`#f-spec-template-spec-containers-${i}-image`) as HTMLInputElement).value).toBe(c.image));

      const inputs = [...view.container.querySelectorAll<HTMLInputElement | HTMLSelectElement | HTMLTextAreaElement>('input, select, textarea')];
      expect(inputs.length).toBeGreaterThan(20);
      for (const el of inputs) {
        if (el.disabled) continue;
        if (el instanceof HTMLInputElement && el.type === 'checkbox') {
          act(() => el.click());
          act(() => el.click());
        } else act(() => retype(el));
      }
      expect(store.draft).toEqual(stored);
    });
  }
});
