# frozen_string_literal: true

require_relative "../../error"
require_relative "../wrk"

module Rackbench
  module Load
    module Remote
      # Each load host's share of a level, weighted by its cores (or the
      # =WEIGHT given with --load-host).
      #
      # Open loop: host i offers R x w_i / sum(w) requests a second; the
      # shares add up to R exactly (fractions allowed: wrk-open paces any rate).
      # Closed loop: C connections split by the largest-remainder method
      # (Hamilton's), so whole shares add up to C and each is within one of
      # its exact quota; every host needs at least one connection.
      module Shares
        module_function

        # weights: numbers above 0, one per host. Returns fractions summing to 1.
        def fractions(weights)
          total = weights.sum.to_f
          weights.map { |w| w / total }
        end

        def rates(rate, weights)
          fractions(weights).map { |f| rate * f }
        end

        def connections(count, weights, labels)
          if count < weights.size
            raise UsageError, "concurrency #{count} is below the number of load hosts (#{weights.size}: " \
                              "#{labels.join(', ')}); give at least one connection per host"
          end

          quotas = fractions(weights).map { |f| f * count }
          shares = quotas.map(&:floor)
          order = quotas.each_index.sort_by { |i| [-(quotas[i] - shares[i]), i] }
          order.first(count - shares.sum).each { |i| shares[i] += 1 }
          fix_zeros(shares)
        end

        # A host rounded down to 0 takes one connection from the largest share.
        def fix_zeros(shares)
          shares.each_index do |i|
            next unless shares[i].zero?

            shares[shares.index(shares.max)] -= 1
            shares[i] = 1
          end
          shares
        end

        # wrk threads for c connections on a host with cores cores: the
        # largest divisor of c not above min(c, cores, 2) (Wrk's own rule,
        # with the host's cores), or the given count when it divides c.
        def threads(connections, cores, given = nil)
          return given if given && given <= connections && (connections % given).zero?

          [connections, cores, Wrk::MAX_DEFAULT_THREADS].min.downto(1).find { |t| (connections % t).zero? }
        end
      end
    end
  end
end
