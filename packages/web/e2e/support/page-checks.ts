import type { Page } from 'playwright-core';

/**
 * Names from inside the code that a person should never read in the console: policy names, gRPC
 * methods, audit action and entity identifiers, record fields. The console says them in words
 * (`@realtime-config/protocol/vocabulary`, `src/components/plain-words.ts`).
 */
export const INTERNAL_IDENTIFIERS: readonly string[] = [
  'canAll',
  'canChange',
  'canReveal',
  'GetConfig',
  'StartSubscribe',
  'CreateVersion',
  'IsVersionExists',
  'ValueSet',
  'MemberAdded',
  'MemberRemoved',
  'SecretRotated',
  'OverridesSet',
  'RolloutCreated',
  'RolloutStepped',
  'RolloutRolledBack',
  'rolled_back',
  'stepSeconds',
  'bakeSeconds',
  'disconnectedShare',
  'ApiKey',
  'ChangeRequest',
  'rawValue',
  'valueType',
  'isSecret',
  'enumDefinition',
  'groupName',
  'versionLabel',
];

/** Any other permission name of the configuration's form (`canDeploy`). */
const PERMISSION_NAME = /\bcan[A-Z][A-Za-z]*\b/;

/**
 * Everything wrong with the page as it is shown, each as one line saying where: internal identifiers
 * in its text (what is rendered, hidden-for-screen-reader text included, and the names and hints of
 * controls), a notice (status or alert) over a button, the page wider than the screen, a select whose
 * chosen option is cut off, a tab hidden sideways, and text that breaks words anywhere.
 */
export async function pageProblems(page: Page): Promise<string[]> {
  const found = await page.evaluate(
    ({ identifiers, permission }) => {
      const problems: string[] = [];
      const permissionName = new RegExp(permission);
      const shown = (e: Element) => {
        const r = e.getBoundingClientRect();
        const style = getComputedStyle(e);
        return r.width > 0 && r.height > 0 && style.visibility !== 'hidden' && style.display !== 'none';
      };
      const describe = (e: Element) =>
        `<${e.tagName.toLowerCase()}> "${(e.textContent ?? '').trim().replace(/\s+/g, ' ').slice(0, 60)}"`;

      // 1. Words from inside the code.
      const texts = [document.body.innerText];
      for (const e of document.querySelectorAll('[title], [aria-label], [placeholder], [aria-description]')) {
        for (const name of ['title', 'aria-label', 'placeholder', 'aria-description']) {
          const value = e.getAttribute(name);
          if (value) texts.push(value);
        }
      }
      for (const option of document.querySelectorAll('option')) texts.push(option.text);
      const text = texts.join('\n');
      for (const id of identifiers) {
        if (new RegExp(`\\b${id}\\b`).test(text)) problems.push(`shows the internal name ${id}`);
      }
      const other = permissionName.exec(text);
      if (other) problems.push(`shows the permission name ${other[0]}`);

      // 2. A notice over a button: at the middle of where they overlap, the notice is on top.
      const notices = [
        ...document.querySelectorAll('[role="status"], [role="alert"], .mantine-Notification-root'),
      ].filter((n) => shown(n) && (n.textContent ?? '').trim() !== '');
      const buttons = [...document.querySelectorAll('button, [role="button"], a[href]')].filter(shown);
      for (const notice of notices) {
        const n = notice.getBoundingClientRect();
        for (const button of buttons) {
          if (notice.contains(button) || button.contains(notice)) continue;
          const b = button.getBoundingClientRect();
          const left = Math.max(n.left, b.left);
          const right = Math.min(n.right, b.right);
          const top = Math.max(n.top, b.top);
          const bottom = Math.min(n.bottom, b.bottom);
          if (right - left < 1 || bottom - top < 1) continue;
          const onTop = document.elementFromPoint((left + right) / 2, (top + bottom) / 2);
          if (onTop && notice.contains(onTop))
            problems.push(`the notice ${describe(notice)} covers ${describe(button)}`);
        }
      }

      // 3. Sideways: the page, a select's chosen option, the tabs.
      const root = document.documentElement;
      if (root.scrollWidth > root.clientWidth) {
        problems.push(`the page is ${root.scrollWidth} px wide on a ${root.clientWidth} px screen`);
      }
      const canvas = document.createElement('canvas').getContext('2d');
      for (const select of document.querySelectorAll('select')) {
        if (!shown(select) || !canvas) continue;
        const style = getComputedStyle(select);
        canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
        const chosen = select.selectedOptions[0]?.text ?? '';
        const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
        if (canvas.measureText(chosen).width > room + 1) {
          problems.push(`the select ${select.getAttribute('aria-label') ?? select.id} cuts off "${chosen}"`);
        }
      }
      for (const nav of document.querySelectorAll('nav')) {
        const edge = nav.getBoundingClientRect().right;
        for (const link of nav.querySelectorAll('a')) {
          if (link.getBoundingClientRect().right > edge + 1) problems.push(`the tab ${describe(link)} is out of sight`);
        }
      }

      // 4. Words broken anywhere (`applicat|ion`): text must break between words.
      for (const e of document.querySelectorAll('body *')) {
        if (getComputedStyle(e).wordBreak === 'break-all' && shown(e) && (e.textContent ?? '').trim() !== '') {
          problems.push(`${describe(e)} breaks words anywhere (word-break: break-all)`);
        }
      }
      return problems;
    },
    { identifiers: INTERNAL_IDENTIFIERS, permission: PERMISSION_NAME.source },
  );
  return [...new Set(found)];
}
