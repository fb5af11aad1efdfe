import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NewValidator, ValidatorChange } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const path = (serviceId: string) => ({ params: { path: { serviceId } } });

export function useValidators(serviceId: string) {
  return useQuery({
    queryKey: queryKeys.services.validators(serviceId),
    queryFn: () => unwrap(api.GET('/api/services/{serviceId}/validators', path(serviceId))),
    retry: false,
  });
}

export function useCreateValidator(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewValidator) =>
      unwrap(api.POST('/api/services/{serviceId}/validators', { ...path(serviceId), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.validators(serviceId) }),
  });
}

export function useChangeValidator(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: ({ validatorId, change }: { validatorId: string; change: ValidatorChange }) =>
      unwrap(
        api.PUT('/api/services/{serviceId}/validators/{validatorId}', {
          params: { path: { serviceId, validatorId } },
          body: change,
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.validators(serviceId) }),
  });
}

export function useDeleteValidator(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (validatorId: string) =>
      unwrap(
        api.DELETE('/api/services/{serviceId}/validators/{validatorId}', {
          params: { path: { serviceId, validatorId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.validators(serviceId) }),
  });
}
