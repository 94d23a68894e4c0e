import { describe, expect, it } from 'vitest';
import { skillZip, snap, useConsoleWorld } from './harness.ts';

describe('skills: upload, read SKILL.md as text, delete', () => {
  const world = useConsoleWorld();

  it('skills page says what to upload when empty', async () => {
    const page = await world.openConsole({ hash: '#/skills' });
    await page.getByText('No skills yet').waitFor();
    await snap(page, 'skills-empty');
  });

  it('uploads a skill zip, lists it with its SKILL.md description, and deletes it', async () => {
    const page = await world.openConsole({ hash: '#/skills' });
    const folder = world.unique('widgets');
    const zip = await skillZip(world.scratch, 'date-pickers.zip', 'Fill calendar widgets that ignore typed input');
    const form = page.getByRole('form', { name: 'Upload a skill' });
    await form.getByLabel('Skill zip').setInputFiles(zip);
    await form.getByLabel('Folder').fill(folder);
    await form.getByRole('button', { name: 'Upload' }).click();
    const card = page.getByRole('article').filter({ hasText: 'date-pickers' });
    await card.getByText('Fill calendar widgets that ignore typed input').waitFor();
    await card.getByText(new RegExp(`^${folder} · private · `)).waitFor();
    const listed = await world.api.call('listSkills', { params: { org_id: 'default' } });
    expect(listed).toMatchObject([
      { name: 'date-pickers', description: 'Fill calendar widgets that ignore typed input' },
    ]);
    await snap(page, 'skills');
    // SKILL.md opens as plain text: the markup in it shows as characters and never becomes elements.
    await card.getByRole('button', { name: 'Show SKILL.md' }).click();
    const shown = card.getByLabel('SKILL.md of date-pickers');
    await shown.getByText('Open the calendar, then click the day.', { exact: false }).waitFor();
    expect(await shown.textContent()).toContain('<img src=x onerror="document.title=\'pwned\'"> <b>not bold</b>');
    expect(await shown.locator('img, b').count()).toBe(0);
    expect(await page.title()).not.toBe('pwned');
    expect(await card.getByRole('button', { name: 'Hide SKILL.md' }).getAttribute('aria-expanded')).toBe('true');
    await snap(page, 'skills-skill-md');
    await card.getByRole('button', { name: 'Hide SKILL.md' }).click();
    expect(await shown.count()).toBe(0);
    await card.getByRole('button', { name: 'Delete' }).click();
    await card.getByRole('button', { name: 'Delete skill' }).click();
    await page.getByText('No skills yet').waitFor();
    expect(await world.api.call('listSkills', { params: { org_id: 'default' } })).toEqual([]);
  });
});
