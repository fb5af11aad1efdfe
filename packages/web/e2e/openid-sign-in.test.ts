import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EXTERNAL_PEOPLE, EXTERNAL_ROLE_ARGS } from '@realtime-config/test-support/provider-sign-in';
import { OIDC_CLIENT_ID, OIDC_CLIENT_SECRET, TestOidcProvider } from '@realtime-config/test-support/test-oidc-provider';
import { expectVisible, startConsole, type ConsoleUnderTest } from './support/console.js';

// With an identity provider the console's Sign in button starts the provider's flow and comes back
// to the page the user asked for (docs/rest-api.md, OpenId; docs/console.md, Sign-in).
describe('signing in to the console through OpenID Connect', () => {
  let idp: TestOidcProvider;
  let ui: ConsoleUnderTest;

  beforeAll(async () => {
    const ada = EXTERNAL_PEOPLE.admin;
    idp = await TestOidcProvider.start({ [ada.id]: { email: ada.email, name: ada.name, groups: [...ada.groups] } });
    ui = await startConsole({
      args: [
        '--Authentication:Provider=OpenId',
        `--Authentication:OpenId:Authority=${idp.issuer}`,
        `--Authentication:OpenId:ClientId=${OIDC_CLIENT_ID}`,
        `--Authentication:OpenId:ClientSecret=${OIDC_CLIENT_SECRET}`,
        '--Authentication:OpenId:RequireHttpsMetadata=false',
        '--Authentication:OpenId:Scope:0=openid',
        '--Authentication:OpenId:Scope:1=email',
        '--Authentication:OpenId:Scope:2=profile',
        '--Authentication:OpenId:Scope:3=groups',
        ...EXTERNAL_ROLE_ARGS,
      ],
    });
    idp.registerClient(ui.server.baseUrl);
  });
  afterAll(async () => {
    await ui?.close();
    await idp?.close();
  });

  it('offers one Sign in button, goes through the provider and returns to the page asked for', async () => {
    const page = await ui.window();
    await page.goto('/services?q=pay');
    expect(await page.getByLabel('Username').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign in' }).click();
    // The test provider's own login and consent pages.
    await page.waitForURL((url) => url.href.startsWith(idp.issuer));
    await page.getByRole('textbox').first().fill(EXTERNAL_PEOPLE.admin.id);
    await page.getByRole('textbox').nth(1).fill('any password');
    await page.getByRole('button').first().click();
    await page.getByRole('button').first().click();
    await page.waitForURL((url) => url.href.startsWith(ui.server.baseUrl));
    await expectVisible(page.getByRole('heading', { name: 'Services', exact: true }));
    expect(new URL(page.url()).search).toBe('?q=pay');
    await expectVisible(page.getByRole('link', { name: 'Ada Admin' }));
    // canAll through the provider's groups, but no Local users to manage.
    expect(await page.getByRole('button', { name: 'New service' }).count()).toBe(1);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
  });
});
