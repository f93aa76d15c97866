import { describe, expect, it } from 'vitest';
import { describeRunLocation, fileNameOf, locateRunParameter } from './open-artifact.js';

const page = 'http://127.0.0.1:4178/?run=x';

describe('?run= locations (issue 18)', () => {
  it('fetches a relative or same-origin URL by itself, and says it came from this origin', () => {
    const location = locateRunParameter('./runs/incident-4711.json', page);
    expect(location).toMatchObject({ kind: 'same-origin' });
    if (location.kind !== 'same-origin') return;
    expect(location.url.href).toBe('http://127.0.0.1:4178/runs/incident-4711.json');
    expect(describeRunLocation(location, 'http://127.0.0.1:4178')).toBe("http://127.0.0.1:4178/runs/incident-4711.json, fetched from this page's own origin (http://127.0.0.1:4178) by ?run=");
    expect(fileNameOf(location)).toBe('incident-4711.json');
    expect(locateRunParameter('http://127.0.0.1:4178/a.json', page).kind).toBe('same-origin');
  });

  it('leaves another origin (another host, port or scheme) and data: URLs to the reader', () => {
    for (const other of ['http://127.0.0.2:4178/a.json', 'http://127.0.0.1:8080/a.json', 'https://127.0.0.1:4178/a.json', '//127.0.0.2/a.json']) expect(locateRunParameter(other, page).kind, other).toBe('other-origin');
    const data = locateRunParameter('data:application/json,{}', page);
    expect(data.kind).toBe('data');
    if (data.kind === 'data') expect(fileNameOf(data)).toBeUndefined();
  });

  it('refuses every other scheme and URLs with credentials, naming the fix', () => {
    for (const refused of ['javascript:alert(1)', 'file:///etc/passwd', 'blob:http://127.0.0.1:4178/0b0e', 'ftp://127.0.0.1/a.json', 'http://user:pw@127.0.0.1:4178/a.json']) {
      const location = locateRunParameter(refused, page);
      expect(location.kind, refused).toBe('refused');
      if (location.kind === 'refused') expect(location.reason).toMatch(/save the file and load it with the file input$/);
    }
  });
});
