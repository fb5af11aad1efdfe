import { keepPreviousData, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import type { Service, ServiceFields } from '@realtime-config/protocol/rest';
import { api, unwrap } from '../../api/client';
import { queryKeys } from '../../api/query-keys';

export const SERVICES_PAGE_SIZE = 20;

export function useServiceSearch(name: string, pageToken: string | null) {
  return useQuery({
    queryKey: queryKeys.services.search(name, pageToken),
    queryFn: () =>
      unwrap(
        api.POST('/api/services/search', { body: { name: name || null, pageSize: SERVICES_PAGE_SIZE, pageToken } }),
      ),
    placeholderData: keepPreviousData,
  });
}

export function useCreateService() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: ServiceFields) => unwrap(api.POST('/api/services', { body })),
    onSuccess: (service: Service) => {
      queryClient.setQueryData(queryKeys.services.detail(service.id), service);
      return queryClient.invalidateQueries({ queryKey: queryKeys.services.all, exact: false });
    },
  });
}
