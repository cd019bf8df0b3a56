# frozen_string_literal: true

require "test_helper"
require "rackbench/workload/app"
require "rackbench/workload/bundle_check"

# A commit's worktree (run --ref, a bisection's step) whose lock names
# gems not installed was refused with "run `bundle install` in
# RUN/steps/01-189d8b6/refs/e21550f": a directory rackbench removes when
# the run ends (ruby-grape/grape-on-rack's history, issue 44). The line
# names a checkout of that commit in the user's own app instead.
class BundleCheckCheckoutTest < Minitest::Test
  LOCK = <<~LOCK
    GEM
      remote: https://gems.invalid/
      specs:
        rack (9.9.9)

    PLATFORMS
      ruby

    DEPENDENCIES
      rack

    BUNDLED WITH
       #{Gem::Version.new(Bundler::VERSION)}
  LOCK

  def app(checkout)
    dir = tmpdir
    File.write(File.join(dir, "config.ru"), "run ->(_) { [200, {}, []] }\n")
    File.write(File.join(dir, "Gemfile"), %(gem "rack"\n))
    File.write(File.join(dir, "Gemfile.lock"), LOCK)
    Rackbench::Workload::App.new(config_ru: File.join(dir, "config.ru"), checkout: checkout)
  end

  def test_a_commits_worktree_names_a_checkout_of_it_in_the_users_app
    checkout = Rackbench::Workload::App::Checkout.new(short: "e21550f", root: "/home/me/gor")
    problem = Rackbench::Workload::BundleCheck.problem(app(checkout))
    assert_equal "your app's Gemfile.lock names gems that are not installed (rack 9.9.9): install them as for any checkout " \
                 "of e21550f (`git checkout e21550f && bundle install` in /home/me/gor, then back: rackbench's worktree " \
                 "of it is removed when the run ends)", problem
  end

  def test_the_users_own_directory_keeps_bundle_install_there
    a = app(nil)
    assert_equal "your app's Gemfile.lock names gems that are not installed (rack 9.9.9): run `bundle install` in #{a.root}",
                 Rackbench::Workload::BundleCheck.problem(a)
  end
end
