import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { NewWebhook } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

const path = (serviceId: string) => ({ params: { path: { serviceId } } });

export function useWebhooks(serviceId: string) {
  return useQuery({
    queryKey: queryKeys.services.webhooks(serviceId),
    queryFn: () => unwrap(api.GET('/api/services/{serviceId}/webhooks', path(serviceId))),
    retry: false,
  });
}

export function useCreateWebhook(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: NewWebhook) =>
      unwrap(api.POST('/api/services/{serviceId}/webhooks', { ...path(serviceId), body })),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.webhooks(serviceId) }),
  });
}

export function useDeleteWebhook(serviceId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (webhookId: string) =>
      unwrap(
        api.DELETE('/api/services/{serviceId}/webhooks/{webhookId}', { params: { path: { serviceId, webhookId } } }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.webhooks(serviceId) }),
  });
}

/** The newest deliveries of a webhook, looked at again every few seconds while shown (retries, new changes). */
export function useDeliveries(serviceId: string, webhookId: string) {
  return useQuery({
    queryKey: queryKeys.services.deliveries(serviceId, webhookId),
    queryFn: () =>
      unwrap(
        api.GET('/api/services/{serviceId}/webhooks/{webhookId}/deliveries', {
          params: { path: { serviceId, webhookId }, query: { pageSize: '50' } },
        }),
      ),
    refetchInterval: 3000,
  });
}

export function useRedeliver(serviceId: string, webhookId: string) {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (deliveryId: string) =>
      unwrap(
        api.POST('/api/services/{serviceId}/webhooks/{webhookId}/deliveries/{deliveryId}/redeliver', {
          params: { path: { serviceId, webhookId, deliveryId } },
        }),
      ),
    onSuccess: () => queryClient.invalidateQueries({ queryKey: queryKeys.services.deliveries(serviceId, webhookId) }),
  });
}
