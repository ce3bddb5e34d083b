import { describe, expect, it } from 'vitest';
import { locateNearest, locatePath, pathAt, pathSegments } from './locate.ts';

const text = `apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata:
  name: web # the front door
  labels:
    app.kubernetes.io/name: web
spec:
  ingress:
    - ports:
        - port: 8080
          endPort: 80
`;

describe('locating a Kubernetes field path in YAML', () => {
  it('splits paths with indexes and bracketed map keys', () => {
    expect(pathSegments('spec.ingress[0].ports[0].endPort')).toEqual(['spec', 'ingress', '0', 'ports', '0', 'endPort']);
    expect(pathSegments('metadata.labels[app.kubernetes.io/name]')).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
  });

  it('covers key and scalar value of a leaf field', () => {
    expect(locatePath(text, 'spec.ingress[0].ports[0].endPort')).toEqual({ startLine: 11, startColumn: 11, endLine: 11, endColumn: 22 });
    expect(locatePath(text, 'metadata.labels[app.kubernetes.io/name]')).toMatchObject({ startLine: 6, startColumn: 5 });
  });

  it('marks a list item that is a block on its first line only', () => {
    const peers = `spec:
  ingress:
    - from:
        - podSelector:
            matchLabels:
              app: web
          ipBlock:
            cidr: 10.0.0.300/33
`;
    expect(locatePath(peers, 'spec.ingress[0].from[0]')).toEqual({ startLine: 4, startColumn: 11, endLine: 4, endColumn: 23 });
    expect(locatePath(peers, 'spec.ingress[0].from[0].ipBlock.cidr')).toMatchObject({ startLine: 8, endLine: 8 });
  });

  it('covers only the key of a block', () => {
    expect(locatePath(text, 'spec.ingress')).toEqual({ startLine: 8, startColumn: 3, endLine: 8, endColumn: 10 });
  });

  it('falls back to the nearest ancestor for a missing field, and to nothing for broken YAML', () => {
    expect(locatePath(text, 'spec.podSelector')).toBeUndefined();
    expect(locateNearest(text, 'spec.podSelector')).toEqual({ startLine: 7, startColumn: 1, endLine: 7, endColumn: 5 });
    expect(locateNearest(text, 'spec.ingress[3].from')).toEqual(locatePath(text, 'spec.ingress'));
    expect(locateNearest('a: [', 'spec')).toBeUndefined();
  });
});

describe('the field under a position', () => {
  it('is the key or value there, with list indexes', () => {
    expect(pathAt(text, 4, 4)).toEqual(['metadata', 'name']);
    expect(pathAt(text, 4, 10)).toEqual(['metadata', 'name']);
    expect(pathAt(text, 6, 30)).toEqual(['metadata', 'labels', 'app.kubernetes.io/name']);
    expect(pathAt(text, 5, 4)).toEqual(['metadata', 'labels']);
    expect(pathAt(text, 10, 12)).toEqual(['spec', 'ingress', 0, 'ports', 0, 'port']);
    expect(pathAt(text, 11, 20)).toEqual(['spec', 'ingress', 0, 'ports', 0, 'endPort']);
  });

  it('is undefined outside the document', () => {
    expect(pathAt(text, 40, 1)).toBeUndefined();
    expect(pathAt('', 1, 1)).toBeUndefined();
  });
});
