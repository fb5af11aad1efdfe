import { Badge, Stack, Switch } from '@mantine/core';
import { useMutation, useQueryClient } from '@tanstack/react-query';
import type { Version } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';
import { ProblemAlert } from '../../components/problem-alert';

function useSetProtected(serviceId: string, versionId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (isProtected: boolean) =>
      unwrap(
        api.PUT('/api/configversions/{serviceId}/{versionId}', {
          params: { path: { serviceId, versionId } },
          body: { protected: isProtected },
        }),
      ),
    onSuccess: (version) => {
      queryClient.setQueryData(queryKeys.versions.detail(serviceId, versionId), version);
      void queryClient.invalidateQueries({ queryKey: queryKeys.versions.list(serviceId), exact: true });
    },
  });
}

/**
 * `Protected`: owners switch it; a protected version changes only through reviewed change requests.
 * The others see a badge.
 */
export function ProtectionSwitch({
  serviceId,
  version,
  manage,
}: {
  serviceId: string;
  version: Version;
  manage: boolean;
}) {
  const set = useSetProtected(serviceId, version.id);
  if (!manage) {
    return version.protected ? (
      <Badge color="violet" variant="light" title="Values change through reviewed change requests">
        Protected
      </Badge>
    ) : null;
  }
  return (
    <Stack gap={4}>
      <Switch
        label="Protected"
        description="Values change only through change requests another person approves"
        checked={set.isPending ? set.variables : version.protected}
        disabled={set.isPending}
        onChange={(e) => set.mutate(e.currentTarget.checked)}
      />
      {set.isError && <ProblemAlert error={set.error} />}
    </Stack>
  );
}
