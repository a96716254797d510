// Voice mode: hands-free, push-to-talk, settings, failures.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { send, sel, test } from './common.mjs';

const voiceState = (page) => page.textContent(sel('voice-state'));
const waitPhase = (page, phase, timeout = 8000) => page.waitForSelector(`${sel('voice-panel')}[data-phase="${phase}"]`, { timeout });
const voiceCalls = (page, cmd) => page.evaluate((c) => window.__mock.calls.filter((x) => x.cmd === c).map((x) => x.args), cmd);

test('voice: hands-free conversation — level, draft, transcript, answer, speaking, Stop, End', async ({ page }) => {
  await page.waitForFunction(() => performance.getEntriesByName('app-interactive').length === 1);
  // The panel is its own chunk, not fetched until wanted.
  assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/VoicePanel-[^/]*\.js$/.test(r.name))), false);
  await page.evaluate(() => {
    window.__mock.voiceAutoMs = 700;
    window.__mock.voiceSentenceMs = 5000;
  });
  // The loudest meter reading, kept by the page itself: a loaded machine may
  // poll after the short loud stretch has already passed.
  await page.evaluate(() => {
    window.__maxLevel = 0;
    new MutationObserver(() => {
      const m = document.querySelector('[data-testid="voice-level"]');
      if (m) window.__maxLevel = Math.max(window.__maxLevel, Number(m.dataset.level));
    }).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['data-level'] });
  });
  await page.click(sel('voice-open'));
  await page.waitForSelector(sel('voice-panel'));
  assert.equal(await page.evaluate(() => performance.getEntriesByType('resource').some((r) => /\/VoicePanel-[^/]*\.js$/.test(r.name))), true);
  await waitPhase(page, 'listening');
  assert.equal(await voiceState(page), 'Listening');
  assert.match(await page.textContent(sel('voice-hint')), /Baton answers when you pause/);
  assert.match(await page.textContent(`${sel('voice-panel')} .sub`), /Built-in Audio.*hands-free/);
  // The level meter follows the `level` events.
  await page.waitForFunction(() => Number(document.querySelector('[data-testid="voice-level"]').dataset.level) > 0);
  // Speech: the draft transcript, then the final one replaces it.
  await page.waitForSelector(sel('voice-partial'));
  assert.equal(await voiceState(page), 'Hearing you…');
  await page.waitForSelector(`${sel('voice-turn')}[data-role="user"]`);
  assert.ok(await page.evaluate(() => window.__maxLevel) > 0.4, 'the meter rose while the user spoke');
  assert.equal(await page.locator(sel('voice-partial')).count(), 0);
  assert.equal(await page.textContent(`${sel('voice-turn')}[data-role="user"] .text`), 'What is the weather in Lisbon today?');
  // The answer streams and is spoken, with a Stop button.
  await page.waitForSelector(sel('voice-speaking'));
  assert.equal(await voiceState(page), 'Speaking');
  assert.equal(await page.textContent(sel('voice-speaking')), 'It is sunny and 24 degrees in Lisbon.');
  assert.match(await page.textContent(`${sel('voice-turn')}[data-role="assistant"] .text`), /^It is sunny and 24 degrees in Lisbon\./);
  assert.equal(await page.getAttribute(`${sel('voice-turn')}[data-role="assistant"]`, 'data-streaming'), 'true');
  await page.click(sel('voice-stop-speaking'));
  await waitPhase(page, 'listening');
  assert.equal((await voiceCalls(page, 'voice_stop_speaking')).length, 1);
  assert.equal(await page.locator(sel('voice-stop-speaking')).count(), 0);
  assert.equal(await page.locator(sel('voice-speaking')).count(), 0);
  const cut = page.locator(`${sel('voice-turn')}[data-role="assistant"]`).last();
  assert.equal(await cut.getAttribute('data-streaming'), 'false');
  assert.equal(await cut.locator(sel('voice-interrupted')).textContent(), 'Stopped');
  assert.doesNotMatch(await cut.locator('.text').textContent(), /river/);

  // A whole answer: its first-audio latency is noted.
  await page.evaluate(() => {
    window.__mock.voiceSentenceMs = 80;
    void window.__mock.voiceExchange();
  });
  await page.waitForFunction(() => {
    const a = document.querySelectorAll('[data-testid="voice-turn"][data-role="assistant"]');
    return a.length === 2 && a[1].getAttribute('data-streaming') === 'false';
  });
  await waitPhase(page, 'listening');
  const full = page.locator(`${sel('voice-turn')}[data-role="assistant"]`).last();
  assert.equal(await full.locator('.text').textContent(), 'It is sunny and 24 degrees in Lisbon. A good day for a walk by the river.');
  assert.equal(await full.locator(sel('voice-timing')).textContent(), 'first audio in 1,143 ms');
  assert.equal(await full.locator(sel('voice-interrupted')).count(), 0);
  assert.equal(await page.locator(sel('voice-turn')).count(), 4);

  // End: `stopped` makes it idle; the turns stay.
  await page.click(sel('voice-end'));
  await waitPhase(page, 'idle');
  assert.equal((await voiceCalls(page, 'voice_stop')).length, 1);
  assert.equal(await voiceState(page), 'Not listening');
  assert.equal(await page.locator(sel('voice-turn')).count(), 4);
  assert.equal(await page.textContent(sel('voice-start')), 'Start again');
  assert.equal(await page.evaluate(() => window.__mock.voiceEvents.at(-1).kind), 'stopped');
  await page.click(sel('voice-back'));
  await page.waitForSelector(sel('composer'));
  assert.equal(await page.locator(sel('voice-panel')).count(), 0);
  // A new conversation (no chat was open), saved like a chat: it opens, each
  // spoken question marked, and the sidebar shows it as a voice conversation.
  assert.deepEqual((await voiceCalls(page, 'voice_start'))[0].session, null);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="spoken-badge"]').length === 2);
  assert.equal(await page.textContent(sel('chat-title')), 'What is the weather in Lisbon today?');
  const badges = (await page.locator(sel('spoken-badge')).allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
  assert.match(badges[0], /^spoken · answer heard after 1\.1 s · interrupted$/);
  assert.equal(badges[1], 'spoken · answer heard after 1.1 s');
  const sid = await page.evaluate(() => [...window.__mock.sessions.keys()].at(-1));
  assert.equal(await page.locator(`${sel('session-item')}[data-id="${sid}"] ${sel('session-voice')}`).count(), 1);
});

test('voice: an open chat is continued by voice, and the spoken turn joins it', async ({ page }) => {
  await page.waitForSelector(`${sel('session-item')}[data-id="s1"]`);
  await page.click(`${sel('session-item')}[data-id="s1"] button.open`);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="message"]').length === 2);
  await page.evaluate(() => {
    window.__mock.voiceAutoMs = 100;
    window.__mock.voiceSentenceMs = 60;
  });
  await page.click(sel('voice-open'));
  await page.waitForSelector(`${sel('voice-turn')}[data-role="assistant"][data-streaming="false"]`);
  const start = (await voiceCalls(page, 'voice_start'))[0];
  assert.equal(start.session, 's1');
  await page.click(sel('voice-end'));
  await waitPhase(page, 'idle');
  await page.click(sel('voice-back'));
  // Back in the same chat: its two typed messages, then the spoken exchange.
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="message"]').length === 4);
  assert.equal(await page.locator(sel('spoken-badge')).count(), 1);
  assert.equal(await page.textContent(sel('chat-title')), 'Rust ownership basics');
  assert.equal(await page.locator(`${sel('session-item')}[data-id="s1"] ${sel('session-voice')}`).count(), 1);
});

test('voice: push-to-talk — press/release, pointer leave and Space send the right calls', async ({ page }) => {
  await page.evaluate(() => {
    window.__mock.voice.pushToTalk = true;
    window.__mock.voiceSentenceMs = 100;
  });
  await page.click(sel('voice-open'));
  const talk = page.locator(sel('voice-talk'));
  await talk.waitFor();
  await waitPhase(page, 'listening');
  assert.equal(await voiceState(page), 'Ready — hold to talk');
  assert.equal((await voiceCalls(page, 'voice_talk')).length, 0);
  const pressed = async () => (await voiceCalls(page, 'voice_talk')).map((a) => a.pressed);
  // Press and hold.
  await talk.hover();
  await page.mouse.down();
  await page.waitForSelector(sel('voice-partial'));
  assert.deepEqual(await pressed(), [true]);
  assert.equal(await talk.getAttribute('aria-pressed'), 'true');
  assert.equal(await voiceState(page), 'Hearing you…');
  await page.mouse.up();
  await page.waitForFunction(() => window.__mock.calls.filter((c) => c.cmd === 'voice_talk').length === 2);
  assert.deepEqual(await pressed(), [true, false]);
  assert.equal(await talk.getAttribute('aria-pressed'), 'false');
  await page.waitForSelector(`${sel('voice-turn')}[data-role="user"]`);
  await page.waitForSelector(`${sel('voice-turn')}[data-role="assistant"][data-streaming="false"]`);
  await waitPhase(page, 'listening');
  // Leaving the button while holding releases.
  await talk.hover();
  await page.mouse.down();
  await page.mouse.move(2, 2);
  await page.mouse.up();
  await page.waitForFunction(() => window.__mock.calls.filter((c) => c.cmd === 'voice_talk').length === 4);
  assert.deepEqual(await pressed(), [true, false, true, false]);
  await page.waitForFunction(() => document.querySelectorAll('[data-testid="voice-turn"][data-role="assistant"][data-streaming="false"]').length === 2);
  await waitPhase(page, 'listening');
  // Space while the panel has focus (held: repeats send nothing more).
  await page.focus(sel('voice-panel'));
  await page.keyboard.down('Space');
  await page.keyboard.down('Space');
  await page.waitForSelector(sel('voice-partial'));
  assert.deepEqual(await pressed(), [true, false, true, false, true]);
  await page.keyboard.up('Space');
  await page.waitForFunction(() => window.__mock.calls.filter((c) => c.cmd === 'voice_talk').length === 6);
  assert.deepEqual(await pressed(), [true, false, true, false, true, false]);
  await page.waitForSelector(`${sel('voice-turn')}:nth-child(5)[data-role="user"]`);
  // Space on another button is that button's, not talk.
  await page.focus(sel('voice-settings-open'));
  await page.keyboard.press('Space');
  await page.waitForSelector(sel('voice-settings'));
  assert.equal((await pressed()).length, 6);
  // Closing the panel ends the conversation.
  await page.click(sel('voice-close'));
  await page.waitForSelector(sel('composer'));
  await page.waitForFunction(() => window.__mock.calls.some((c) => c.cmd === 'voice_stop'));
});

test('voice: settings — devices, mode, engine, rate, model, pause; validation; save round-trip', async ({ page, out }) => {
  await page.evaluate(() => (window.__mock.voiceAutoMs = -1));
  await page.click(sel('voice-open'));
  await waitPhase(page, 'listening');
  await page.click(sel('voice-settings-open'));
  await page.waitForSelector(sel('voice-settings-save'));
  const options = (id) => page.$$eval(`${sel(id)} option`, (os) => os.map((o) => o.textContent));
  assert.deepEqual(await options('voice-input'), ['System default', 'Built-in Audio Analog Stereo (default)', 'Jabra Evolve2 65']);
  assert.deepEqual(await options('voice-output'), ['System default', 'Built-in Audio Analog Stereo (default)', 'Jabra Evolve2 65']);
  assert.deepEqual(await options('voice-stt-model'), ['Best available', 'ggml-base.en-q5_0.bin', 'ggml-tiny.en.bin', 'ggml-base-q8_0.bin']);
  assert.deepEqual(await options('voice-language'), ['Same as the app (English)', 'Detect the language', 'English', 'German', 'French', 'Spanish']);
  assert.deepEqual(await options('voice-tts-engine'), ['Best on this computer (natural voice if installed)', 'eSpeak NG (on this computer)', 'Piper natural voice (on this computer)', 'openai']);
  assert.equal(await page.inputValue(sel('voice-input')), '');
  assert.equal(await page.isChecked(sel('voice-mode-handsfree')), true);
  await page.selectOption(sel('voice-input'), 'alsa_input.usb-Jabra_Evolve2');
  await page.selectOption(sel('voice-output'), 'alsa_output.usb-Jabra_Evolve2');
  await page.check(sel('voice-mode-ptt'));
  await page.selectOption(sel('voice-tts-engine'), 'openai');
  await page.fill(sel('voice-tts-voice'), 'alloy');
  await page.fill(sel('voice-tts-rate'), '500');
  await page.fill(sel('voice-end-silence'), '150');
  await page.selectOption(sel('voice-stt-model'), 'ggml-tiny.en.bin');
  assert.equal(await page.isChecked(sel('voice-echo')), true);
  assert.equal(await page.isChecked(sel('voice-noise')), false);
  await page.check(sel('voice-noise'));
  await page.locator(sel('voice-settings')).screenshot({ path: join(out, 'voice-settings-noise.png') });
  await page.uncheck(sel('voice-echo'));
  // Noise suppression runs inside the echo canceller: off with it.
  assert.equal(await page.isDisabled(sel('voice-noise')), true);
  await page.click(sel('voice-settings-save'));
  await page.waitForSelector(sel('voice-problem'));
  const problems = await page.$$eval(sel('voice-problem'), (es) => es.map((e) => e.textContent));
  assert.deepEqual(problems, ['The speaking rate must be 80–450 words per minute.', 'The pause that ends speech must be 200–5000 ms.']);
  assert.equal((await voiceCalls(page, 'save_voice_settings')).length, 0);
  await page.fill(sel('voice-tts-rate'), '220');
  await page.fill(sel('voice-end-silence'), '900');
  await page.click(sel('voice-settings-save'));
  await page.waitForSelector(sel('voice-settings-saved'));
  assert.match(await page.textContent(sel('voice-settings-saved')), /next time you start talking/);
  assert.equal(await page.locator(sel('voice-problem')).count(), 0);
  const saved = {
    pushToTalk: true,
    inputDevice: 'alsa_input.usb-Jabra_Evolve2',
    outputDevice: 'alsa_output.usb-Jabra_Evolve2',
    ttsEngine: 'openai',
    ttsVoice: 'alloy',
    ttsRate: 220,
    sttModel: 'ggml-tiny.en.bin',
    endSilenceMs: 900,
    language: 'en',
    echoCancellation: false,
    noiseSuppression: true,
    // Not on the panel: sent back as they were.
    threads: null,
    beamSize: 1,
    partialEveryMs: 1000,
    speculateAfterMs: 300,
  };
  assert.deepEqual((await voiceCalls(page, 'save_voice_settings')).at(-1).settings, saved);
  assert.deepEqual(await page.evaluate(() => window.__mock.voice), saved);
  // Another language: refused in words with an English-only model, kept with the best available one.
  await page.selectOption(sel('voice-language'), 'de');
  assert.match(await page.textContent(`${sel('voice-settings')} .hint`), /answers in the language you speak/);
  await page.click(sel('voice-settings-save'));
  await page.waitForSelector(`${sel('voice-settings')} ${sel('error')}`);
  assert.match(await page.textContent(`${sel('voice-settings')} ${sel('error')}`), /ggml-tiny\.en\.bin understands only English: pick a multilingual model for German/);
  await page.selectOption(sel('voice-stt-model'), '');
  await page.click(sel('voice-settings-save'));
  await page.waitForFunction(() => window.__mock.voice.language === 'de');
  assert.equal(await page.evaluate(() => window.__mock.voice.sttModel), null);
  // Errors from the Rust side are shown too.
  await page.evaluate(() => (window.__mock.voiceEngines = ['espeak']));
  await page.click(sel('voice-settings-save'));
  await page.waitForSelector(`${sel('voice-settings')} ${sel('error')}`);
  assert.match(await page.textContent(`${sel('voice-settings')} ${sel('error')}`), /no speech engine named `openai`/);
  await page.evaluate(() => (window.__mock.voiceEngines = ['auto', 'espeak', 'piper', 'openai']));
  await page.click(sel('voice-settings-close'));
  // A new conversation uses them: push-to-talk now.
  await page.click(sel('voice-end'));
  await waitPhase(page, 'idle');
  await page.click(sel('voice-start'));
  await page.waitForSelector(sel('voice-talk'));
  await waitPhase(page, 'listening');
  assert.match(await page.textContent(`${sel('voice-panel')} .sub`), /Jabra Evolve2 65 · push-to-talk/);
  // Reopened, the form shows what was saved; a device list that could not be read says why.
  await page.evaluate(() => (window.__mock.audioDevices = { inputs: [], outputs: [], error: 'no sound server is running (PulseAudio / PipeWire)' }));
  await page.click(sel('voice-settings-open'));
  await page.waitForSelector(sel('voice-devices-error'));
  assert.match(await page.textContent(sel('voice-devices-error')), /could not be listed: no sound server/);
  assert.equal(await page.isChecked(sel('voice-mode-ptt')), true);
  assert.equal(await page.inputValue(sel('voice-input')), 'alsa_input.usb-Jabra_Evolve2');
  assert.match(await page.textContent(`${sel('voice-input')} option:checked`), /not connected/);
  assert.equal(await page.inputValue(sel('voice-tts-rate')), '220');
  assert.equal(await page.inputValue(sel('voice-tts-voice')), 'alloy');
  assert.equal(await page.inputValue(sel('voice-stt-model')), '');
  assert.equal(await page.inputValue(sel('voice-language')), 'de');
});

test('voice: no microphone is said in plain words, with details; then it can start again', async ({ page, out }) => {
  await page.evaluate(() => {
    window.__mock.voiceAutoMs = -1;
    window.__mock.voiceStartError = { code: 'audio', message: 'No microphone was found.', details: 'cpal: no default input device (host ALSA)' };
  });
  await page.click(sel('voice-open'));
  await page.waitForSelector(sel('voice-failure'));
  await waitPhase(page, 'idle');
  assert.equal(await page.getAttribute(sel('voice-failure'), 'data-code'), 'audio');
  assert.equal(await page.textContent(sel('voice-failure-title')), 'Baton could not use a microphone.');
  assert.match(await page.textContent(sel('voice-failure')), /No microphone was found\./);
  assert.equal(await page.isVisible(sel('voice-failure-details')), false);
  await page.click(`${sel('voice-failure')} summary`);
  assert.match(await page.textContent(sel('voice-failure-details')), /cpal: no default input device/);
  assert.equal(await page.textContent(sel('voice-start')), 'Start again');
  await page.screenshot({ path: join(out, 'voice-no-microphone-800x600-light.png') });
  await page.click(sel('voice-failure-settings'));
  await page.waitForSelector(sel('voice-settings-save'));
  await page.click(sel('voice-settings-close'));
  // Plugged in: it starts.
  await page.click(sel('voice-start'));
  await waitPhase(page, 'listening');
  assert.equal(await page.locator(sel('voice-failure')).count(), 0);
  // A failure during the conversation: shown, and it goes on listening.
  await page.evaluate(() => window.__mock.emitVoice({ kind: 'error', message: 'The speech engine failed: espeak-ng exited with status 1.' }));
  await page.waitForSelector(sel('voice-error'));
  assert.match(await page.textContent(sel('voice-error')), /espeak-ng exited with status 1\. — still listening\./);
  assert.equal(await voiceState(page), 'Listening');
  await page.click(`${sel('voice-error')} button`);
  assert.equal(await page.locator(sel('voice-error')).count(), 0);
}, { viewport: { width: 800, height: 600 } });

for (const scheme of ['light', 'dark']) {
  test(
    `voice screenshot 800x600 ${scheme}`,
    async ({ page, out }) => {
      await page.evaluate(() => {
        window.__mock.voiceAutoMs = 300;
        window.__mock.voiceSentenceMs = 60000;
      });
      await page.click(sel('voice-open'));
      await page.waitForSelector(sel('voice-speaking'));
      await page.waitForTimeout(150);
      await page.screenshot({ path: join(out, `voice-800x600-${scheme}.png`) });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      assert.ok(overflow <= 0, `horizontal overflow ${overflow}px`);
      const box = await page.locator(sel('voice-end')).boundingBox();
      assert.ok(box && box.y + box.height <= 600, 'End is on screen');
      await page.click(sel('voice-settings-open'));
      await page.waitForSelector(sel('voice-settings-save'));
      await page.screenshot({ path: join(out, `voice-settings-800x600-${scheme}.png`) });
      await page.click(sel('voice-settings-close'));
      // Push-to-talk, held.
      await page.click(sel('voice-end'));
      await waitPhase(page, 'idle');
      await page.evaluate(() => (window.__mock.voice.pushToTalk = true));
      await page.click(sel('voice-start'));
      await page.locator(sel('voice-talk')).hover();
      await page.mouse.down();
      await page.waitForSelector(sel('voice-partial'));
      await page.waitForTimeout(400);
      await page.screenshot({ path: join(out, `voice-ptt-800x600-${scheme}.png`) });
      await page.mouse.up();
    },
    { viewport: { width: 800, height: 600 }, colorScheme: scheme },
  );
}

for (const scheme of ['light', 'dark']) {
  for (const [w, h] of [[800, 600], [1280, 800]]) {
    test(
      `screenshot ${w}x${h} ${scheme}`,
      async ({ page, out }) => {
        await page.screenshot({ path: join(out, `empty-${w}x${h}-${scheme}.png`) });
        if (w < 900) await page.click(sel('toggle-sidebar'));
        await page.locator(sel('session-item')).nth(1).locator('button.open').click();
        await page.waitForSelector(`${sel('message')}:has-text("Alfama")`);
        await page.locator(`${sel('tool-call')} summary`).click();
        await send(page, 'tell me more');
        await page.waitForSelector(`${sel('message')}[data-role="assistant"][data-index="3"][data-streaming="false"]`);
        await page.evaluate(() =>
          window.__mock.emitAttachments([
            { id: 'x1', name: 'report.pdf', size: 245760, state: { kind: 'ready', format: 'PDF', chars: 5000, pages: 4 } },
            { id: 'x2', name: 'setup.exe', size: 1048576, state: { kind: 'skipped', reason: 'binary file' } },
            { id: 'x3', name: 'photo.png', size: 345678, state: { kind: 'converting' } },
          ]),
        );
        await page.waitForSelector(`${sel('attachment-chip')}[data-state="converting"]`);
        await page.waitForTimeout(200);
        await page.screenshot({ path: join(out, `chat-${w}x${h}-${scheme}.png`) });
        // Layout: nothing overflows horizontally.
        const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        assert.ok(overflow <= 0, `horizontal overflow ${overflow}px`);
        if (w < 900) assert.equal(await page.locator('nav.sidebar').count(), 0, 'sidebar collapses when narrow');
        if (w < 900) await page.click(sel('toggle-sidebar'));
        await page.click(sel('open-settings'));
        await page.waitForSelector(sel('save-settings'));
        await page.screenshot({ path: join(out, `settings-${w}x${h}-${scheme}.png`) });
      },
      { viewport: { width: w, height: h }, colorScheme: scheme },
    );
  }
}

// ------------------------------------------------------------------ performance
