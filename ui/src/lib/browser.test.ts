import { describe, expect, it } from 'vitest';
import { badSites, browserSettingsToSave, sitesFromText, sitesToText } from './browser';

describe('browser settings', () => {
  it('reads sites from lines or commas, dropping schemes and slashes', () => {
    expect(sitesFromText(' https://example.com/ \nshop.example.org, ,http://intranet.local//\n')).toEqual([
      'example.com',
      'shop.example.org',
      'intranet.local',
    ]);
    expect(sitesToText(['a.com', 'b.org'])).toBe('a.com\nb.org');
  });

  it('flags sites that are addresses of pages, not sites', () => {
    expect(badSites(['example.com', 'example.com/login', 'my site.org'])).toEqual(['example.com/login', 'my site.org']);
  });

  it('saves typed lists and no read-only browser list', () => {
    const saved = browserSettingsToSave(
      {
        mode: 'attach',
        path: '  ',
        allowedSites: [],
        blockedSites: [],
        allowOtherSchemes: false,
        browsers: [{ name: 'Chromium', program: '/usr/bin/chromium', attachReady: false, attachStatus: 'x', inspectPage: 'chrome://inspect' }],
      },
      'example.com',
      'ads.example.com\ntracker.net',
    );
    expect(saved).toEqual({
      mode: 'attach',
      path: null,
      allowedSites: ['example.com'],
      blockedSites: ['ads.example.com', 'tracker.net'],
      allowOtherSchemes: false,
    });
  });
});
