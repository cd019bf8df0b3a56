# frozen_string_literal: true

module Rackbench
  module Server
    # The Gemfile lines rackbench tells a user to add when their app's bundle
    # lacks a server: the versions of rackbench's own Gemfile, which are the
    # ones that run on this Ruby (3.1). test/unit/server/gem_pins_test.rb
    # checks PINS against rackbench's Gemfile (and the Rails workload's, for
    # the servers it has: not Itsi, Iodine or Agoo), so
    # the hint cannot drift from what rackbench itself runs.
    module GemPins
      PINS = {
        "puma" => "8.0.2",
        "unicorn" => "6.1.0",
        "thin" => "2.0.1",
        "falcon" => "0.51.1", # 0.52+ needs Ruby 3.2
        "pitchfork" => "0.18.2",
        "itsi-server" => "0.2.27",
        "itsi-scheduler" => "0.2.27",
        "iodine" => "0.7.60", # 0.8 needs Ruby 3.2
        "agoo" => "2.15.15",
        "json" => "2.6.3"
      }.freeze

      # Gems a server's own dependencies would resolve to a version that
      # breaks apps on this Ruby, pinned beside it: Falcon's console gem
      # pulls in json 3, whose API drops what Rails 7.1's JSON encoding
      # passes (`unknown keyword: quirks_mode`, a 500 on every page).
      # Itsi's fiber scheduler ("itsi x2 fibers") is a gem of its own.
      COMPANIONS = { "falcon" => { "json" => "falcon's dependencies would otherwise pull json 3, which breaks Rails" },
                     "itsi-server" => { "itsi-scheduler" => "Itsi's fiber scheduler, for \"itsi xN fibers\"" } }.freeze

      # The lowest Rack each pinned version declares (its gemspec; gem_pins_test
      # reads the installed ones): an app locked to an older Rack cannot add it.
      RACK_MIN = { "pitchfork" => "2.0", "itsi-server" => "1.6", "thin" => "1" }.freeze

      module_function

      # Why this app cannot add gem as pinned: its Gemfile.lock's Rack is
      # older than the gem needs (nil when it can, or the lock says nothing).
      def rack_conflict(gem, app)
        need = RACK_MIN[gem] or return nil
        have = app.locked_version("rack") or return nil
        return nil if Gem::Version.new(have) >= Gem::Version.new(need)

        "#{gem} #{PINS[gem]} needs Rack >= #{need} and your Gemfile.lock has rack #{have}"
      end

      # `gem "puma", "8.0.2"`; a gem without a pin gets a bare line.
      def line(gem)
        pin = PINS[gem]
        pin ? %(gem "#{gem}", "#{pin}") : %(gem "#{gem}")
      end

      # [[gem, why or nil]] to add for these server gems to an app's bundle:
      # each gem, then its companions the app has not chosen a version of
      # itself (named in its Gemfile or already locked).
      def gems_to_add(gems, app)
        companions = gems.flat_map { |g| COMPANIONS.fetch(g, {}).to_a }.uniq(&:first)
        companions = companions.reject { |c, _| gems.include?(c) || app.names_gem?(c) || app.locked_version(c) }
        gems.map { |g| [g, nil] } + companions
      end

      # What to do about server gems an app's bundle lacks (its Gemfile.lock
      # exists), one clause: the lines to add, then `bundle install` there.
      def hint(gems, app)
        root = File.dirname(app.gemfile)
        named, unnamed = gems.partition { |g| app.names_gem?(g) }
        lacks = "Gemfile.lock lacks #{named.size == 1 ? 'it' : 'them'}"
        return "its Gemfile names #{named.join(', ')} but #{lacks}: run `bundle install` in #{root}" if unnamed.empty?

        conflicts = unnamed.filter_map { |g| rack_conflict(g, app) }
        unnamed = unnamed.reject { |g| rack_conflict(g, app) }
        blocked = conflicts.any? ? "#{conflicts.join('; ')}: upgrade Rack in #{app.gemfile} or leave that server out" : nil
        return blocked if unnamed.empty? && named.empty?

        lines = gems_to_add(unnamed, app).map { |g, why| "`#{line(g)}`#{why && " (#{why})"}" }
        also = named.any? ? " (it names #{named.join(', ')} already, but #{lacks})" : ""
        add = lines.empty? ? "run `bundle install` in #{root}#{also}" : "add #{sentence(lines)} to #{app.gemfile}#{also}, then run `bundle install` in #{root}"
        [add, blocked].compact.join("; ")
      end

      def sentence(items)
        items.size < 2 ? items.join : "#{items[0..-2].join(', ')} and #{items.last}"
      end
    end
  end
end
