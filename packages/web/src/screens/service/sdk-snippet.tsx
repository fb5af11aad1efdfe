import { Code, CopyButton, Button, Group, Stack, Text } from '@mantine/core';

export function sdkSnippet(serviceId: string, origin: string): string {
  return `import { connect, defineConfig, group, number, string } from '@realtime-config/client';

const schema = defineConfig({
  Payments: group({ description: 'Payment gateway' }, {
    Provider: string({ default: 'Stripe' }),
    TimeoutSeconds: number({ default: 30 }),
  }),
});

const config = await connect({
  url: '${origin}',
  serviceId: '${serviceId}',
  version: '1.0.0',
  schema,
});
config.subscribe((values) => console.log(values.Payments.TimeoutSeconds));`;
}

/** The empty state of a service without versions: how an application registers its first one. */
export function SdkSnippet({ serviceId }: { serviceId: string }) {
  const code = sdkSnippet(serviceId, window.location.origin);
  return (
    <Stack gap="xs">
      <Text>
        Versions are usually registered by your application: install the SDK <Code>@realtime-config/client</Code> (not
        on the npm registry yet: <Code>npm pack -w @realtime-config/client</Code> in the repository gives its tarball),
        declare the configuration and connect. The first start creates the version with every key and default; later
        starts reuse it. You can also create a version with New version and add entries by hand.
      </Text>
      <Code block aria-label="SDK example">
        {code}
      </Code>
      <Group>
        <CopyButton value={code}>
          {({ copied, copy }) => (
            <Button variant="light" onClick={copy}>
              {copied ? 'Copied' : 'Copy example'}
            </Button>
          )}
        </CopyButton>
        <Text size="sm" c="dimmed">
          When the server requires gRPC credentials, pass an API key of this service as <Code>apiKey</Code>. This page
          shows the version as soon as the application registers it.
        </Text>
      </Group>
    </Stack>
  );
}
